/**
 * What the AG-UI adapter's tests share: AG-UI's own zod schemas as the judge of every event we
 * write, a text body as a byte ReadableStream split where a test says, a collector, a small
 * RFC 6902 applier written from the RFC (add and replace, what our deltas hold) so the deltas are
 * checked by something other than our own `fromJsonPatch`, and OpenAI chat bodies for tool calls.
 */

import { EventSchemas } from '@ag-ui/core/schemas';
import { expect } from 'vitest';

/** Asserts that AG-UI's own schema accepts every event. */
export function expectAgUiEvents(events: readonly unknown[]): void {
  for (const event of events) {
    const parsed = EventSchemas.safeParse(event);
    expect(parsed.success, `${JSON.stringify(event)}: ${parsed.error?.message}`).toBe(true);
  }
}

const encoder = new TextEncoder();

/** `chunks` as a byte stream (UTF-8 split wherever the chunks split the text). */
export function bytes(chunks: readonly string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

export async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of source) out.push(item);
  return out;
}

/** Collects until the source throws; returns the items and the error. */
export async function collectUntilError<T>(source: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of source) items.push(item);
  } catch (error) {
    return { items, error };
  }
  return { items, error: undefined };
}

const unescapeToken = (token: string) => token.replaceAll('~1', '/').replaceAll('~0', '~');

/** RFC 6902 `add` and `replace` on a copy of `doc` (what STATE_DELTA holds); anything else fails the test. */
export function applyPatch(doc: unknown, ops: readonly { op: string; path: string; value?: unknown }[]): unknown {
  let root = structuredClone(doc);
  for (const { op, path, value } of ops) {
    expect(['add', 'replace']).toContain(op);
    if (path === '') {
      root = structuredClone(value);
      continue;
    }
    const tokens = path.slice(1).split('/').map(unescapeToken);
    const last = tokens.pop() as string;
    let parent = root as Record<string, unknown> | unknown[];
    for (const token of tokens) parent = (parent as Record<string, unknown>)[token] as Record<string, unknown>;
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (op === 'add') parent.splice(index, 0, structuredClone(value));
      else {
        expect(index).toBeLessThan(parent.length);
        parent[index] = structuredClone(value);
      }
    } else {
      if (op === 'replace') expect(Object.hasOwn(parent, last)).toBe(true);
      Object.defineProperty(parent, last, {
        value: structuredClone(value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return root;
}

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'gpt-test', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** An OpenAI chat body streaming `calls` (name, id and argument pieces), interleaved piece by piece. */
export function openAiToolBody(
  calls: readonly { id: string; name: string; pieces: readonly string[] }[],
  finished = true,
): string {
  let body = '';
  calls.forEach((call, index) => {
    body += chunk({
      tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
    });
  });
  const longest = Math.max(0, ...calls.map((c) => c.pieces.length));
  for (let i = 0; i < longest; i++) {
    calls.forEach((call, index) => {
      const piece = call.pieces[i];
      if (piece !== undefined) body += chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    });
  }
  if (finished) body += `${chunk({}, 'tool_calls')}data: [DONE]\n\n`;
  return body;
}
