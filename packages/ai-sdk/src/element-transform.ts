/**
 * The element stream of a list output (`array`, `jsonl`): the AI SDK pipes each enriched part
 * (`{ part, partialOutput }`) through it and `elementStream` yields what it enqueues.
 *
 * Contract: each element of the partial lists is enqueued once, in order, as soon as a partial
 * holds it. A list shorter than the count already published is a new step or attempt: counting
 * starts over from that list. When the step's text ends (`text-end`, `finish-step`), `atEnd`
 * (when given) gives the output's last list: what only the end of the text could complete (a
 * JSONL answer's last line without a line break).
 */
export function elementTransform<E>(
  atEnd?: () => Promise<readonly unknown[] | undefined>,
): TransformStream<
  { readonly part?: { readonly type: string }; readonly partialOutput?: readonly E[] | undefined },
  E
> {
  let published = 0;
  const publish = (list: readonly E[], controller: TransformStreamDefaultController<E>) => {
    if (list.length < published) published = 0;
    for (; published < list.length; published++) controller.enqueue(list[published] as E);
  };
  return new TransformStream({
    async transform({ part, partialOutput }, controller) {
      if (partialOutput !== undefined) publish(partialOutput, controller);
      if (atEnd !== undefined && (part?.type === 'text-end' || part?.type === 'finish-step')) {
        const last = await atEnd();
        if (last !== undefined) publish(last as readonly E[], controller);
      }
    },
  });
}
