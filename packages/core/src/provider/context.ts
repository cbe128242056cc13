/**
 * What a wire format module works through: the small context the decoder hands it (emit text,
 * reasoning, tool-call pieces, usage, finish, report), the shape of a format module, and the
 * JSON helpers every format reads events with.
 *
 * A format module holds no delivery logic: it reads one parsed event at a time and tells the
 * context what the event carries. The context keeps the rules every format shares (empty pieces
 * are not delivered, a closed call takes no more pieces, metadata is delivered once per event,
 * diagnostics are counted), so a new format is one file and one line in the table of formats.
 */

import { type Diagnostic, DiagnosticReason } from '../diagnostics/diagnostics.js';
import type { ProviderError, ProviderFormat, Usage } from './types.js';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Normalised usage; `totalTokens` is the provider's, or the sum when it sent none. */
export function usageOf(input: number | undefined, output: number | undefined, total: number | undefined): Usage {
  const sum = total ?? (input !== undefined && output !== undefined ? input + output : undefined);
  return {
    ...(input === undefined ? {} : { inputTokens: input }),
    ...(output === undefined ? {} : { outputTokens: output }),
    ...(sum === undefined ? {} : { totalTokens: sum }),
  };
}

export function errorFrom(message: unknown, code: unknown): ProviderError {
  const text = typeof message === 'string' ? message : JSON.stringify(message);
  const c = typeof code === 'string' ? code : typeof code === 'number' ? String(code) : undefined;
  return c === undefined ? { message: text } : { message: text, code: c };
}

/** Where the event being decoded starts, and its data (the excerpt of what it causes). */
export interface EventAt {
  readonly line: number;
  readonly offset: number;
  readonly data: string;
}

/** One tool call as the decoder tracks it. */
export interface CallState {
  readonly key: string;
  readonly index: number;
  id: string | undefined;
  name: string | undefined;
  /** The pieces delivered so far, concatenated ('' when the decoder does not keep arguments). */
  pieces: string;
  /** Characters delivered so far (what `maxArgumentsLength` bounds). */
  length: number;
  /** Every piece delivered so far is blank (whitespace only): a closed call then gets its `initial`. */
  blank: boolean;
  /** Past `maxArgumentsLength`: reported once, its pieces forgotten, nothing more delivered. */
  dropped: boolean;
  /** Complete arguments the provider gave without pieces. */
  initial: string | undefined;
  complete: boolean;
  /** A `truncated` diagnostic already named this call. */
  reported: boolean;
  /** A piece after the call closed was reported. */
  lateReported: boolean;
}

/** What a format module may do with what an event carries. */
export interface FormatContext {
  /** True once the current message's end marker arrived; a format that starts a new message resets it. */
  finished: boolean;
  /** A piece of answer text (`undefined` and `''` are ignored). */
  emitText(delta: string | undefined): void;
  /** A piece of reasoning (`undefined` and `''` are ignored). */
  emitReasoning(delta: string | undefined): void;
  /** The call under `key`, opened on first sight; a first non-empty id or name is kept. */
  call(key: string, index: number, id: string | undefined, name: string | undefined): CallState;
  /** The call under `key`, if one was opened. */
  findCall(key: string): CallState | undefined;
  /** A piece of a call's arguments; a piece for a closed call is reported, not delivered. */
  emitArguments(call: CallState, delta: string | undefined): void;
  /** Longest arguments of a call, in characters (what a format that assembles arguments itself checks). */
  readonly maxArgumentsLength: number;
  /**
   * Drops a call whose arguments, assembled by the format, would pass `maxArgumentsLength`: one
   * `too-long` diagnostic (`excerpt` shows what passed it), and nothing more of it is delivered.
   */
  dropCall(call: CallState, excerpt: string): void;
  /** The provider closed the call: empty arguments become its up-front input, or `{}`. */
  close(call: CallState): void;
  /** The message's end marker: every call is closed, a refusal is reported. */
  finishSegment(): void;
  /** Refusal text (not answer text), reported when the message ends. */
  refuse(text: string): void;
  reportRefusal(): void;
  /** Reports that the current message was cut, naming its open tool calls. */
  cut(message: string, line: number, offset: number): void;
  /**
   * A new message starts (`startMarker`): the previous one, if it had not ended with its
   * `endMarker`, is reported cut; `finished` is reset. Returns the new message's number (from 1).
   */
  startMessage(startMarker: string, endMarker: string, at: EventAt): number;
  setModel(model: unknown): void;
  setFinishReason(reason: string | undefined): void;
  setUsage(usage: Usage | undefined): void;
  providerError(error: ProviderError, at: EventAt): void;
  report(reason: Diagnostic['reason'], at: EventAt, message: string): void;
}

/** The per-stream state of one format: it reads each event of the format, in order. */
export interface FormatReader {
  event(event: Json, at: EventAt): void;
  /** What ends this stream, when the events read so far make it other than the format's `endMarker`. */
  readonly endMarker?: string | undefined;
  /** `data: [DONE]` arrived (the decoder stops decoding after it). */
  done?(): void;
}

/** A wire format: how `auto` recognises its events, and a reader per stream. */
export interface WireFormat {
  readonly name: ProviderFormat;
  /** How messages name it (`OpenAI chat completions`). */
  readonly title: string;
  /** What ends a complete stream, for the diagnostic of one cut before it. */
  readonly endMarker: string;
  /** Whether `event` is an event of this format (the same test picks the format under `auto`). */
  recognises(event: Json): boolean;
  create(context: FormatContext): FormatReader;
}

/**
 * Chat `choices` and Gemini `candidates`: only the entry numbered 0 (its `index`, else its
 * position) is decoded; the first other one is reported, once per stream.
 */
export class FirstEntryOnly {
  #reported = false;

  readonly #context: FormatContext;
  readonly #noun: string;

  constructor(context: FormatContext, noun: string) {
    this.#context = context;
    this.#noun = noun;
  }

  /** Visits entry 0 of `items`, in order with the report of any other. */
  each(items: unknown[], at: EventAt, visit: (entry: Json) => void): void {
    for (let j = 0; j < items.length; j++) {
      const entry: unknown = items[j];
      if (!isObject(entry)) continue;
      const index = num(entry.index) ?? j;
      if (index === 0) {
        visit(entry);
      } else if (!this.#reported) {
        this.#reported = true;
        const noun = this.#noun;
        this.#context.report(
          DiagnosticReason.unrecognized,
          at,
          `${noun} ${index} ignored: only the first ${noun} is decoded (and any other ${noun} is ignored)`,
        );
      }
    }
  }
}
