/**
 * Google Gemini / Vertex AI `streamGenerateContent`: each event is one `GenerateContentResponse`,
 * in either of the two bodies the endpoint streams — with `alt=sse`, SSE events; without it
 * (the default), one JSON array whose elements arrive pretty-printed, `\n,\r\n` between them,
 * each decoded as soon as its closing brace arrives (array-framing.ts). The body's first
 * character tells them apart (`[` or not), so both are `input: 'gemini'`, and `auto` finds both.
 *
 * - Text: `candidates[0].content.parts[].text`; a part with `thought: true` is reasoning.
 * - Tool calls: a `functionCall` part, one call each, keyed `candidate0.function_call<n>` (`n`
 *   counts calls from 0; `index` is `n`, `id` and `name` as sent). Whole `args` are delivered as
 *   one piece when the call closes. Vertex's streamed arguments (`functionCall.willContinue`,
 *   then parts with `partialArgs[] = {jsonPath, stringValue | numberValue | boolValue |
 *   nullValue, willContinue}`, then a part without `willContinue`) are assembled at their
 *   `jsonPath` (string values appended; past `maxArgumentsLength`, counting the `null`s an
 *   index past an array's end makes, the call is dropped) and delivered serialized, as one
 *   piece, when the call closes: they are values at paths, not JSON text, so no piece is a
 *   prefix of the arguments before the call is whole. A call still open when the stream ends is cut (`complete: false`,
 *   no arguments).
 * - Finish: `candidates[0].finishReason`, the provider's own word (`STOP`, `MAX_TOKENS`...), ends
 *   the answer (every call is closed). `STOP` and `MAX_TOKENS` are normal ends (`MAX_TOKENS`
 *   is the token limit, like chat `length`); any other (`SAFETY`, `RECITATION`,
 *   `PROHIBITED_CONTENT`, `MALFORMED_FUNCTION_CALL`, `OTHER`...) is a `provider-error` with that
 *   code, and stays the finish reason. A prompt blocked before any answer
 *   (`promptFeedback.blockReason`) is a `provider-error` too and ends the stream.
 * - Usage (`usageMetadata`, cumulative, repeated on every event): `inputTokens` is
 *   `promptTokenCount` plus `toolUsePromptTokenCount`, `outputTokens` is `candidatesTokenCount`
 *   plus `thoughtsTokenCount` (thinking is output, as in OpenAI's `completion_tokens`),
 *   `totalTokens` is `totalTokenCount`. Model: `modelVersion`.
 * - Only candidate 0 is decoded; another candidate is reported once. Errors (`{"error": {code,
 *   message, status}}`) are read by the decoder like every format's. Parts that are not text or
 *   calls (`executableCode`, `inlineData`, a bare `thoughtSignature`) carry no answer text.
 */

import { DiagnosticReason } from '../diagnostics/diagnostics.js';
import {
  type CallState,
  type EventAt,
  FirstEntryOnly,
  type FormatContext,
  type FormatReader,
  isObject,
  type Json,
  num,
  str,
  usageOf,
  type WireFormat,
} from './context.js';

export const gemini: WireFormat = {
  name: 'gemini',
  title: 'Google Gemini',
  endMarker: 'a finishReason',
  recognises: (event) =>
    Array.isArray(event.candidates) || isObject(event.usageMetadata) || isObject(event.promptFeedback),
  create: (context) => new GeminiReader(context),
};

/** Finish reasons that end an answer normally; any other says why the model was stopped. */
const NORMAL_FINISH = new Set(['STOP', 'MAX_TOKENS']);

type PathSegment = string | number;

/** `$.a.b[0]['c d']` as segments; `undefined` when it is not such a path. */
function parseJsonPath(path: string): PathSegment[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const segments: PathSegment[] = [];
  const token = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
  token.lastIndex = 1;
  while (token.lastIndex < path.length) {
    const m = token.exec(path);
    if (m === null) return undefined;
    if (m[2] !== undefined) segments.push(Number(m[2]));
    else segments.push((m[1] ?? m[3] ?? m[4] ?? '').replace(/\\(.)/g, '$1'));
  }
  return segments;
}

/** A container whose keys cannot reach a prototype (`__proto__` is an ordinary key here). */
function container(next: PathSegment): Json | unknown[] {
  return typeof next === 'number' ? [] : (Object.create(null) as Json);
}

/**
 * Arguments assembled from `partialArgs`, string values appended at their path. `size` counts
 * at least the characters their JSON will take (the holes an index far past an array's end
 * leaves serialize as `null`s), so that `maxArgumentsLength` bounds them while they assemble.
 */
class PartialArguments {
  readonly root: Json = Object.create(null) as Json;
  size = 2;

  /** Applies one piece; false when its path or value is not understood. */
  apply(piece: Json): boolean {
    const path = parseJsonPath(str(piece.jsonPath) ?? '');
    if (path === undefined || path.length === 0) return false;
    let value: unknown;
    if ('stringValue' in piece) value = str(piece.stringValue);
    else if ('numberValue' in piece) value = num(piece.numberValue);
    else if ('boolValue' in piece) value = typeof piece.boolValue === 'boolean' ? piece.boolValue : undefined;
    else if ('nullValue' in piece) value = null;
    if (value === undefined) return false;
    let parent: Json | unknown[] = this.root;
    for (let i = 0; i < path.length - 1; i++) {
      const segment = path[i] as PathSegment;
      const next = path[i + 1] as PathSegment;
      const child: unknown = (parent as Record<PathSegment, unknown>)[segment];
      if (typeof child === 'object' && child !== null && Array.isArray(child) === (typeof next === 'number')) {
        parent = child as Json | unknown[];
      } else {
        const made = container(next);
        if (!this.#set(parent, segment, made)) return false;
        this.size += 2;
        parent = made;
      }
    }
    const last = path[path.length - 1] as PathSegment;
    const current: unknown = (parent as Record<PathSegment, unknown>)[last];
    // A string value continues the string already at its path.
    const appended = typeof value === 'string' && typeof current === 'string';
    if (!this.#set(parent, last, appended ? current + value : value)) return false;
    this.size += typeof value === 'string' ? value.length + (appended ? 0 : 2) : String(value).length;
    return true;
  }

  /** Sets a slot, counting what it adds to the JSON (a member's key, an array's new elements). */
  #set(parent: Json | unknown[], key: PathSegment, value: unknown): boolean {
    if (Array.isArray(parent) !== (typeof key === 'number')) return false;
    if (Array.isArray(parent)) this.size += Math.max(0, (key as number) + 1 - parent.length) * 5;
    else if (!Object.hasOwn(parent, key)) this.size += (key as string).length + 4;
    // Past the cap nothing is set: the call is dropped, and a huge index makes no huge array.
    return this.size <= this.#cap && set(parent, key, value);
  }

  readonly #cap: number;

  constructor(cap: number) {
    this.#cap = cap;
  }
}

function set(parent: Json | unknown[], key: PathSegment, value: unknown): boolean {
  if (Array.isArray(parent) !== (typeof key === 'number')) return false;
  if (Array.isArray(parent)) {
    // Indexes missing before `key` stay holes, serialized as null.
    parent[key as number] = value;
  } else {
    Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return true;
}

class GeminiReader implements FormatReader {
  #calls = 0;
  readonly #candidates: FirstEntryOnly;
  #badPieceReported = false;
  /** A call whose arguments are still streaming (`willContinue`), and what arrived of them. */
  #open: { call: CallState; args: PartialArguments } | undefined;

  readonly #context: FormatContext;

  constructor(context: FormatContext) {
    this.#context = context;
    this.#candidates = new FirstEntryOnly(context, 'candidate');
  }

  event(event: Json, at: EventAt): void {
    const context = this.#context;
    context.setModel(event.modelVersion);
    let finish: Json | undefined;
    if (Array.isArray(event.candidates)) {
      this.#candidates.each(event.candidates, at, (candidate) => {
        const content = candidate.content;
        if (isObject(content) && Array.isArray(content.parts)) {
          for (const part of content.parts) if (isObject(part)) this.#part(part, at);
        }
        if (typeof candidate.finishReason === 'string' && candidate.finishReason !== '') finish = candidate;
      });
    }
    // Usage comes with the finish reason in the last event: read it before the answer ends.
    if (isObject(event.usageMetadata)) this.#usage(event.usageMetadata);
    const feedback = event.promptFeedback;
    const blocked = isObject(feedback) ? str(feedback.blockReason) : undefined;
    if (isObject(feedback) && blocked !== undefined && blocked !== '') {
      const why = str(feedback.blockReasonMessage);
      this.#stop(blocked, `the prompt was blocked${why === undefined ? '' : `: ${why}`}`, at);
    } else if (finish !== undefined) {
      const reason = finish.finishReason as string;
      const why = str(finish.finishMessage);
      this.#stop(
        reason,
        NORMAL_FINISH.has(reason) ? undefined : `the response was stopped${why === undefined ? '' : `: ${why}`}`,
        at,
      );
    }
  }

  /** The answer ended: open calls close, and a reason that is not a normal end is a provider error. */
  #stop(reason: string, error: string | undefined, at: EventAt): void {
    this.#closeOpen();
    if (error !== undefined) this.#context.providerError({ message: error, code: reason }, at);
    this.#context.setFinishReason(reason);
    this.#context.finishSegment();
  }

  #part(part: Json, at: EventAt): void {
    if (typeof part.text === 'string') {
      if (part.thought === true) this.#context.emitReasoning(part.text);
      else this.#context.emitText(part.text);
    }
    if (isObject(part.functionCall)) this.#functionCall(part.functionCall, at);
  }

  #functionCall(fn: Json, at: EventAt): void {
    const name = str(fn.name);
    // A named part while a call streams starts the next call.
    if (this.#open !== undefined && name !== undefined && name !== '' && this.#open.call.name !== undefined) {
      this.#closeOpen();
    }
    let open = this.#open;
    const partial = Array.isArray(fn.partialArgs) ? fn.partialArgs : [];
    if (open === undefined) {
      // `{}` closes a streamed call; alone it is nothing.
      if (name === undefined && !isObject(fn.args) && partial.length === 0 && fn.willContinue !== true) return;
      const n = this.#calls++;
      const call = this.#context.call(`candidate0.function_call${n}`, n, str(fn.id), name);
      if (isObject(fn.args)) call.initial = JSON.stringify(fn.args);
      open = { call, args: new PartialArguments(this.#context.maxArgumentsLength) };
      this.#open = open;
    } else {
      this.#context.call(open.call.key, open.call.index, str(fn.id), name);
    }
    for (const piece of partial) {
      if (open.call.dropped) break;
      const applied = isObject(piece) && open.args.apply(piece);
      if (open.args.size > this.#context.maxArgumentsLength) {
        // Past the cap: the call is dropped (one diagnostic), and what was assembled forgotten.
        this.#context.dropCall(open.call, isObject(piece) ? (str(piece.jsonPath) ?? '') : '');
        open.args = new PartialArguments(0);
        break;
      }
      if (!applied && !this.#badPieceReported) {
        this.#badPieceReported = true;
        this.#context.report(
          DiagnosticReason.unrecognized,
          at,
          `function call ${open.call.key}: a partialArgs piece that is not a {jsonPath, value} this decoder reads; ignored (and any that follow)`,
        );
      }
    }
    if (fn.willContinue !== true) this.#closeOpen();
  }

  /** Closes the streamed call: its assembled arguments, if any, are its input. */
  #closeOpen(): void {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    if (!open.call.dropped && Object.keys(open.args.root).length > 0) {
      open.call.initial = JSON.stringify(open.args.root);
    }
    this.#context.close(open.call);
  }

  #usage(u: Json): void {
    const prompt = num(u.promptTokenCount);
    const candidates = num(u.candidatesTokenCount);
    const thoughts = num(u.thoughtsTokenCount);
    const toolPrompt = num(u.toolUsePromptTokenCount);
    const input = prompt === undefined ? toolPrompt : prompt + (toolPrompt ?? 0);
    const output = candidates === undefined ? thoughts : candidates + (thoughts ?? 0);
    this.#context.setUsage(usageOf(input, output, num(u.totalTokenCount)));
  }
}
