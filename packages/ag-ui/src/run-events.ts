/**
 * `agUiRun`: AG-UI events framed as one run, as an agent's `run()` answers: `RUN_STARTED`
 * {threadId, runId}, the events, then `RUN_FINISHED`, or `RUN_ERROR` {message, code} when the
 * events fail (a `failFast` violation, a cut tool call, a broken body) — after which the protocol
 * allows nothing more, so nothing more is read. Several event streams (tool calls, then state)
 * run one after the other inside the one run.
 */

import type { BaseEvent, RunErrorEvent, RunFinishedEvent, RunStartedEvent } from '@ag-ui/core';
import { EventType } from '@ag-ui/core';
import { checkOptionNames, optionNames } from '@llmjson/core/internal';

export interface AgUiRunOptions {
  /** The conversation the run belongs to. */
  readonly threadId: string;
  /** The run's id. */
  readonly runId: string;
  /** The run that spawned this one, if any. */
  readonly parentRunId?: string;
  /** The run's return value, sent with RUN_FINISHED. Default: none. */
  readonly result?: unknown;
}

/** The options `agUiRun` takes. */
export const AG_UI_RUN_OPTIONS = /* @__PURE__ */ optionNames<AgUiRunOptions>()([
  'threadId',
  'runId',
  'parentRunId',
  'result',
]);

/** RUN_ERROR's `code`: an llmjson error's code (`CONTRACT_VALIDATION_FAILED`…), else the error's name. */
function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, name } = error as { code?: unknown; name?: unknown };
  if (typeof code === 'string' && code !== '') return code;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** `events` (one or several sources, in order) framed as one AG-UI run. Throws TypeError for missing ids. */
export async function* agUiRun<E extends BaseEvent>(
  events: AsyncIterable<E> | readonly AsyncIterable<E>[],
  options: AgUiRunOptions,
): AsyncGenerator<E | RunStartedEvent | RunFinishedEvent | RunErrorEvent> {
  checkOptionNames('agUiRun', options, AG_UI_RUN_OPTIONS);
  const { threadId, runId, parentRunId } = options;
  if (typeof threadId !== 'string' || typeof runId !== 'string') {
    throw new TypeError('agUiRun: threadId and runId must be strings (AG-UI names every run by both)');
  }
  yield {
    type: EventType.RUN_STARTED,
    threadId,
    runId,
    ...(parentRunId === undefined ? {} : { parentRunId }),
  };
  try {
    for (const source of Array.isArray(events) ? events : [events as AsyncIterable<E>]) yield* source;
  } catch (error) {
    const code = codeOf(error);
    yield {
      type: EventType.RUN_ERROR,
      message: error instanceof Error ? error.message : String(error),
      ...(code === undefined ? {} : { code }),
    };
    return;
  }
  yield {
    type: EventType.RUN_FINISHED,
    threadId,
    runId,
    ...(options.result === undefined ? {} : { result: options.result }),
  };
}
