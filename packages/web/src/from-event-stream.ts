/**
 * `fromEventStream`: the llmjson wire format (wire-format.ts) read back at the trust boundary,
 * as typed events: change lists, diagnostics, the end.
 *
 * Contract: whatever the bytes, nothing throws but the transport (a body that fails to read, an
 * HTTP error status, the caller's abort) and no prototype is touched. Every payload is checked:
 * one that is not JSON is a `syntax` diagnostic; an unknown event type, a change with an unknown
 * op, a path that is not an array of strings and integers from 0, a path outside the state the
 * accepted changes built (a key or index no earlier change added, an append to what is not a
 * string), an add of a non-empty container or of what JSON cannot carry, a missing or unknown
 * version are `unrecognized`; an event longer than `maxEventLength` or a string past
 * `maxValueLength` `too-long`; a path deeper than `maxDepth` `too-deep`; a body that ends before
 * the end event `truncated`. Each diagnostic has the `line` and `offset` where its event starts
 * in the decoded body. A refused change is left out of its list (the rest of the list is kept,
 * and later changes under its path are refused in turn), so the change lists yielded always
 * apply with `applyChanges` and a `PartialStore`. The first ten refusals of one event are
 * reported one by one, the rest counted in one more diagnostic.
 *
 * Framing: lines end at `\n`, `\r\n` (also split between chunks) or a lone `\r`; each character
 * is looked at once, so work is linear however the bytes are chunked. An SSE event's lines are
 * held until its blank line and then handed whole to `eventsource-parser` (field rules, `data:`
 * lines joined, comments ignored); an event left without its blank line at the end is dropped
 * (`truncated`), as the SSE standard drops it. Memory is at most one event of `maxEventLength`.
 */

import { ConfigurationError, ConfigurationErrorCode, type Diagnostic, DiagnosticReason } from '@llmjson/core';
import { checkChoice, checkOptionNames, describeValue, excerptAround, quoteInput } from '@llmjson/core/internal';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { ChangeExpander, ExpandRefusal } from './wire-changes.js';
import {
  checkedDiagnostic,
  checkedEnd,
  checkLimit,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_EVENT_LENGTH,
  DEFAULT_MAX_VALUE_LENGTH,
  FROM_EVENT_STREAM_OPTIONS,
  type FromEventStreamOptions,
  ShapeTracker,
  WIRE_FORMAT_VERSION,
  WIRE_FORMAT_VERSIONS_READ,
  type WireEvent,
  type WireFormat,
} from './wire-format.js';

const CR = 0x0d;
const LF = 0x0a;
/** Refusals of one event reported one by one; the rest are counted in one more diagnostic. */
const REPORTED_PER_EVENT = 10;

/** The decoder's limits (the options, defaults applied). */
interface Limits {
  readonly format: WireFormat | undefined;
  readonly maxEventLength: number;
  readonly maxValueLength: number;
  readonly maxDepth: number;
}

/**
 * The push-style reader of the wire format: decoded text in, checked events out through `emit`,
 * synchronously. `fromEventStream` drives it; tests drive it directly.
 */
export class WireDecoder {
  private format: WireFormat | undefined;
  private readonly shapes: ShapeTracker;
  private readonly expander: ChangeExpander;
  /** The changes one member stands for (reused). */
  private readonly expanded: unknown[] = [];
  private readonly parser: EventSourceParser;
  // Line framing.
  private line = '';
  private lineLength = 0;
  private discarding = false;
  private lineNumber = 1;
  private lineOffset = 0;
  private position = 0;
  private skipLF = false;
  // The SSE event being framed: its lines, where it starts.
  private eventLines: string[] = [];
  private eventLength = 0;
  private eventTooLong = false;
  private eventLine = 0;
  private eventOffset = 0;
  // Where the payload being read starts, for its diagnostics.
  private at = { line: 1, offset: 0, text: '' };
  // The stream's state.
  private started = false;
  private unknownVersion = false;
  private ended = false;
  private reportedAfterEnd = false;

  constructor(
    private readonly limits: Limits,
    private readonly emit: (event: WireEvent) => void,
  ) {
    this.format = limits.format;
    this.shapes = new ShapeTracker(limits.maxValueLength, limits.maxDepth);
    this.expander = new ChangeExpander(limits.maxDepth);
    this.parser = createParser({ onEvent: (message) => this.payload(message.data) });
  }

  write(text: string): void {
    let i = 0;
    const n = text.length;
    if (this.skipLF && n > 0) {
      this.skipLF = false;
      if (text.charCodeAt(0) === LF) {
        i = 1;
        this.position++;
        this.lineOffset = this.position;
      }
    }
    while (i < n) {
      let j = i;
      while (j < n) {
        const c = text.charCodeAt(j);
        if (c === LF || c === CR) break;
        j++;
      }
      if (j > i) this.addToLine(text, i, j);
      if (j === n) return;
      let next = j + 1;
      if (text.charCodeAt(j) === CR) {
        if (next < n && text.charCodeAt(next) === LF) next++;
        else if (next === n) this.skipLF = true;
      }
      this.position += next - j;
      this.lineDone();
      i = next;
    }
  }

  end(): void {
    if (this.lineLength > 0 || this.discarding) this.lineDone();
    if (this.eventLines.length > 0 || this.eventTooLong) {
      this.at = { line: this.eventLine, offset: this.eventOffset, text: this.eventLines[0] ?? '' };
      this.report(DiagnosticReason.truncated, 'the body ended inside an event (no blank line after it): dropped');
      this.eventLines = [];
      this.eventTooLong = false;
    }
    if (!this.ended) {
      this.at = { line: this.lineNumber, offset: this.position, text: '' };
      this.report(
        DiagnosticReason.truncated,
        this.started
          ? 'the body ended before the end event: the producer stopped or the connection was cut'
          : 'the body ended before the start event: nothing was sent',
      );
    }
  }

  private addToLine(text: string, from: number, to: number): void {
    const length = to - from;
    this.position += length;
    if (!this.discarding && this.lineLength + length > this.limits.maxEventLength) {
      this.discarding = true;
      this.line = `${this.line}${text.slice(from, Math.min(to, from + 200))}`.slice(0, 200);
    } else if (!this.discarding) {
      this.line =
        this.lineLength === 0 && from === 0 && to === text.length ? text : `${this.line}${text.slice(from, to)}`;
    }
    this.lineLength += length;
  }

  private lineDone(): void {
    const line = this.line;
    const discarded = this.discarding;
    const number = this.lineNumber;
    const offset = this.lineOffset;
    this.line = '';
    this.lineLength = 0;
    this.discarding = false;
    this.lineNumber++;
    this.lineOffset = this.position;
    if (this.format === undefined) {
      const start = line.trimStart();
      if (start === '' && !discarded) return;
      this.format = start.startsWith('{') || start.startsWith('[') ? 'ndjson' : 'sse';
    }
    if (this.format === 'ndjson') {
      this.at = { line: number, offset, text: line };
      if (discarded) this.tooLong();
      else if (line.trim() !== '') this.payload(line);
      return;
    }
    if (line === '' && !discarded) {
      this.dispatch();
      return;
    }
    if (this.eventLines.length === 0 && !this.eventTooLong) {
      this.eventLine = number;
      this.eventOffset = offset;
      this.eventLength = 0;
    }
    this.eventLength += line.length + 1;
    if (discarded || this.eventLength > this.limits.maxEventLength) {
      if (!this.eventTooLong) this.eventLines = [line];
      this.eventTooLong = true;
      return;
    }
    if (!this.eventTooLong) this.eventLines.push(line);
  }

  /** A blank line: the SSE event framed so far goes to the parser, whole, or is dropped. */
  private dispatch(): void {
    const lines = this.eventLines;
    this.eventLines = [];
    this.at = { line: this.eventLine, offset: this.eventOffset, text: lines[0] ?? '' };
    if (this.eventTooLong) {
      this.eventTooLong = false;
      this.tooLong();
      return;
    }
    if (lines.length === 0) return;
    for (const line of lines) this.parser.feed(`${line}\n`);
    this.parser.feed('\n');
  }

  private tooLong(): void {
    this.report(
      DiagnosticReason.tooLong,
      `an event longer than maxEventLength (${this.limits.maxEventLength} characters): dropped`,
    );
  }

  private report(reason: DiagnosticReason, message: string, excerpt = excerptAround(this.at.text)): void {
    const diagnostic: Diagnostic = { reason, line: this.at.line, offset: this.at.offset, excerpt, message };
    this.emit({ type: 'diagnostic', from: 'wire', diagnostic });
  }

  /** One payload: checked, then emitted as an event, or reported. */
  private payload(text: string): void {
    if (this.unknownVersion) return;
    this.at = { ...this.at, text };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.report(DiagnosticReason.syntax, 'an event that is not JSON: dropped');
      return;
    }
    const record =
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : undefined;
    if (!this.started) {
      this.started = true;
      if (record?.type === 'start') {
        if (!WIRE_FORMAT_VERSIONS_READ.includes(record.v as number)) {
          this.unknownVersion = true;
          this.report(
            DiagnosticReason.unrecognized,
            `wire format version ${quoteInput(JSON.stringify(record.v) ?? 'missing')} is not one this reader knows (${WIRE_FORMAT_VERSIONS_READ.join(', ')}): the rest of the stream is ignored`,
          );
        }
        return;
      }
      this.report(
        DiagnosticReason.unrecognized,
        `the stream does not begin with {"type":"start","v":${WIRE_FORMAT_VERSION}}: read as version ${WIRE_FORMAT_VERSION}`,
      );
    }
    if (this.ended) {
      if (!this.reportedAfterEnd) this.report(DiagnosticReason.unrecognized, 'events after the end event: ignored');
      this.reportedAfterEnd = true;
      return;
    }
    if (Array.isArray(value)) {
      this.expander.event(text.length);
      this.changes(value);
      return;
    }
    const type = record?.type;
    if (type === 'diagnostic') {
      const diagnostic = checkedDiagnostic(record?.diagnostic);
      if (typeof diagnostic === 'string')
        this.report(DiagnosticReason.unrecognized, `a diagnostic event refused: ${diagnostic}`);
      else this.emit({ type: 'diagnostic', from: 'server', diagnostic });
    } else if (type === 'end') {
      const end = checkedEnd(record as Record<string, unknown>);
      if (typeof end === 'string') {
        this.report(DiagnosticReason.unrecognized, `an end event refused: ${end}`);
        return;
      }
      this.ended = true;
      this.emit(end);
    } else if (type === 'start') {
      this.report(DiagnosticReason.unrecognized, 'a second start event: ignored');
    } else {
      const name = typeof type === 'string' ? JSON.stringify(quoteInput(type)) : 'none';
      this.report(
        DiagnosticReason.unrecognized,
        `an event of unknown type (${name}): a payload is a change list or has type "diagnostic" or "end"`,
      );
    }
  }

  private changes(list: readonly unknown[]): void {
    const accepted = [];
    let refused = 0;
    const expanded = this.expanded;
    for (const member of list) {
      expanded.length = 0;
      this.expander.expand(member, expanded);
      for (const change of expanded) {
        const result =
          change instanceof ExpandRefusal
            ? { reason: DiagnosticReason.unrecognized, message: change.refused }
            : this.shapes.accept(change);
        if ('op' in result) {
          accepted.push(result);
          continue;
        }
        refused++;
        if (refused <= REPORTED_PER_EVENT) {
          this.report(result.reason, `a change refused: ${result.message}`, excerptOf(member));
        }
      }
    }
    if (refused > REPORTED_PER_EVENT) {
      this.report(
        DiagnosticReason.unrecognized,
        `${refused - REPORTED_PER_EVENT} more changes of this event refused (the first ${REPORTED_PER_EVENT} are reported)`,
      );
    }
    if (accepted.length > 0) this.emit({ type: 'changes', changes: accepted });
  }
}

/** A refused change as its diagnostic quotes it (a value nested too deep to serialise: by its kind). */
function excerptOf(change: unknown): string {
  try {
    return quoteInput(JSON.stringify(change) ?? '', 80);
  } catch {
    return describeValue(change);
  }
}

/** The Content-Type's framing, if it names one. */
function formatOf(contentType: string | null): WireFormat | undefined {
  if (contentType === null) return undefined;
  if (/^\s*text\/event-stream/i.test(contentType)) return 'sse';
  if (/ndjson|jsonl|json-seq|^\s*application\/json/i.test(contentType)) return 'ndjson';
  return undefined;
}

/** A body of the wire format: a fetch `Response`, or its bytes. */
export type EventStreamInput = Response | ReadableStream<Uint8Array>;

/**
 * Reads the wire format back: yields its change lists (checked), diagnostics (the producer's and
 * the reader's) and the end event. Throws ConfigurationError for an invalid option, and an
 * Error for a Response that is not OK or has no body. Breaking out of the loop cancels the body.
 */
export function fromEventStream(
  input: EventStreamInput,
  options: FromEventStreamOptions = {},
): AsyncGenerator<WireEvent, void, undefined> {
  checkOptionNames('fromEventStream', options, FROM_EVENT_STREAM_OPTIONS);
  checkChoice('format', options.format, ['sse', 'ndjson']);
  checkLimit('maxEventLength', options.maxEventLength, 'characters');
  checkLimit('maxValueLength', options.maxValueLength, 'characters');
  checkLimit('maxDepth', options.maxDepth, 'path segments');
  const { signal } = options;
  if (signal !== undefined && !(typeof signal === 'object' && signal !== null && typeof signal.aborted === 'boolean')) {
    throw new ConfigurationError(ConfigurationErrorCode.optionInvalid, 'signal must be an AbortSignal');
  }
  let body: ReadableStream<Uint8Array>;
  let format = options.format;
  if (typeof Response !== 'undefined' && input instanceof Response) {
    if (!input.ok) {
      void input.body?.cancel().catch(() => {});
      throw new Error(`fromEventStream: the response is HTTP ${input.status} ${input.statusText}, not an event stream`);
    }
    if (input.body === null) throw new Error('fromEventStream: the response has no body');
    body = input.body;
    format ??= formatOf(input.headers.get('content-type'));
  } else if (typeof (input as ReadableStream | undefined)?.getReader === 'function') {
    body = input as ReadableStream<Uint8Array>;
  } else {
    throw new TypeError('fromEventStream reads a fetch Response or a ReadableStream of bytes');
  }
  return read(
    body,
    {
      format,
      maxEventLength: options.maxEventLength ?? DEFAULT_MAX_EVENT_LENGTH,
      maxValueLength: options.maxValueLength ?? DEFAULT_MAX_VALUE_LENGTH,
      maxDepth: options.maxDepth ?? DEFAULT_MAX_DEPTH,
    },
    signal,
  );
}

async function* read(
  body: ReadableStream<Uint8Array>,
  limits: Limits,
  signal: AbortSignal | undefined,
): AsyncGenerator<WireEvent, void, undefined> {
  signal?.throwIfAborted();
  const reader = body.getReader();
  const text = new TextDecoder();
  const queue: WireEvent[] = [];
  const wire = new WireDecoder(limits, (event) => queue.push(event));
  const onAbort = () => {
    reader.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let done = false;
  try {
    while (!done) {
      const result = await reader.read();
      signal?.throwIfAborted();
      if (result.done) {
        done = true;
        wire.write(text.decode());
        wire.end();
      } else {
        const chunk: unknown = result.value;
        wire.write(typeof chunk === 'string' ? chunk : text.decode(chunk as Uint8Array, { stream: true }));
      }
      // One event at a time: the queue is emptied before the next chunk is read.
      for (const event of queue.splice(0)) {
        yield event;
        signal?.throwIfAborted();
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
