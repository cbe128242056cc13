/**
 * The Amazon Bedrock ConverseStream wire format of the provider decoder, in both its forms:
 * binary AWS event-stream frames (`application/vnd.amazon.eventstream`, fed as bytes through
 * `decoder.bytes`, as the Node and Web adapters do) and the unframed events, one JSON object per
 * line (or per SSE `data:`), that proxies and SDK dumps give. The events of
 * fixtures/providers/bedrock-*.sse are read in all three forms; frames are real ones, encoded
 * here by `@smithy/eventstream-codec`. The AI SDK's three recorded Bedrock streams are replayed
 * in test/corpora/provider-streams.test.ts.
 *
 * Every body is decoded whole, at every chunk size from 1 to 64 (bytes or characters) and at
 * arbitrary split points, under `auto` and under `input: 'bedrock'`: all give the same sink
 * calls in the same order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test as fcTest } from '@fast-check/vitest';
import { createProviderDecoder, type ProviderInput } from '@llmjson/core';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { numRuns, splitAt, splitPoints } from '../../../test/support/chunking.js';
import {
  decodeEverySplit,
  type Run,
  runProviderDecoder as run,
  runProviderDecoderBytes,
} from '../../../test/support/provider.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/providers');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

const codec = new EventStreamCodec(
  (bytes) => new TextDecoder().decode(bytes),
  (text) => new TextEncoder().encode(text),
);
const header = (value: string) => ({ type: 'string' as const, value });

/** One binary frame with the given string headers and payload. */
function frame(headers: Record<string, string>, payload: string): Uint8Array {
  return codec.encode({
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, header(v)])),
    body: new TextEncoder().encode(payload),
  });
}

/** The frame Bedrock sends for `{"<eventType>": payload}` (or `{"<x>Exception": ...}`). */
function eventFrame(event: Record<string, unknown>): Uint8Array {
  const [name, payload] = Object.entries(event)[0] as [string, unknown];
  return name.endsWith('Exception')
    ? frame({ ':message-type': 'exception', ':exception-type': name }, JSON.stringify(payload))
    : frame(
        { ':message-type': 'event', ':event-type': name, ':content-type': 'application/json' },
        JSON.stringify(payload),
      );
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const frames = (...events: Record<string, unknown>[]) => concat(events.map(eventFrame));
const jsonLines = (...events: Record<string, unknown>[]) => events.map((e) => `${JSON.stringify(e)}\n`).join('');

/** The events of fixtures/providers/<name>.sse (its `data:` lines). */
const eventsOf = (name: string) =>
  fixture(`${name}.sse`)
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
/** The fixture as binary frames, as Bedrock sends it. */
const binary = (name: string) => frames(...eventsOf(name));

const runBytes = runProviderDecoderBytes;

/** Decodes `bytes` whole, at every chunk size 1..64 and split at every byte; asserts they agree. */
const decodeBytes = (bytes: Uint8Array, input: ProviderInput = 'auto', maxEventLength?: number): Run =>
  decodeEverySplit(bytes, input, maxEventLength);

const decode = (body: string, input: ProviderInput = 'auto'): Run => decodeEverySplit(body, input);

/** What the answer is made of: the sink calls but diagnostics (whose positions depend on the form). */
const content = (r: Run) => r.calls.filter((c) => c[0] !== 'diagnostic');
const brief = (r: Run) => r.diagnostics.map((d) => [d.reason, d.line, d.offset, d.message]);

const TEXT_EVENTS = [
  { messageStart: { role: 'assistant' } },
  { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Hello, ' } } },
  { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'wörld ☕' } } },
  { contentBlockStop: { contentBlockIndex: 0 } },
  { messageStop: { stopReason: 'end_turn' } },
  { metadata: { usage: { inputTokens: 4, outputTokens: 5, totalTokens: 9 }, metrics: { latencyMs: 99 } } },
];

describe.each(['bedrock-reasoning-tool', 'bedrock-throttling'])('%s', (name) => {
  const lines = jsonLines(...eventsOf(name));
  const bytes = binary(name);
  const whole = run([lines]);

  test('JSON lines: auto detects the format; every chunk size, and input bedrock, give the same result', () => {
    expect(whole.provider).toBe('bedrock');
    expect(decode(lines)).toEqual(whole);
    expect(decode(lines, 'bedrock')).toEqual(whole);
    // The SSE form (as the AI SDK replays recordings) reads the same.
    const sse = fixture(`${name}.sse`);
    expect(content(decode(sse))).toEqual(content(whole));
    expect(content(decode(sse, 'bedrock'))).toEqual(content(whole));
  });

  test('binary frames: auto recognises them by their first byte; every chunk size gives what the JSON lines give', () => {
    const frames = decodeBytes(bytes);
    expect(frames.provider).toBe('bedrock');
    expect(decodeBytes(bytes, 'bedrock')).toEqual(frames);
    expect(content(frames)).toEqual(content(whole));
    expect(frames.toolCalls).toEqual(whole.toolCalls);
    expect(frames.diagnostics.map((d) => d.reason)).toEqual(whole.diagnostics.map((d) => d.reason));
    expect(frames.stats.events).toBe(whole.stats.events);
  });

  fcTest.prop([splitPoints(bytes.length)], { numRuns: Math.ceil(numRuns / 5) })(
    'binary frames at arbitrary split points',
    (points) => {
      expect(runBytes(splitAt(bytes, points))).toEqual(runBytes([bytes]));
    },
  );

  fcTest.prop([splitPoints(lines.length)], { numRuns: Math.ceil(numRuns / 5) })(
    'JSON lines at arbitrary split points (and as bytes)',
    (points) => {
      expect(run(splitAt(lines, points))).toEqual(whole);
      const utf8 = new TextEncoder().encode(lines);
      expect(runBytes(splitAt(utf8, points))).toEqual(whole);
    },
  );
});

describe('text, reasoning, tool calls, finish reason, usage', () => {
  test('reasoning, text, streamed tool input, a call without input, stopReason, usage with cache reads', () => {
    const r = decodeBytes(binary('bedrock-reasoning-tool'));
    expect(r.reasoning).toBe('The user wants the weather.');
    expect(r.text).toBe('Checking Zürich ☕ 🍓.');
    expect(r.toolCalls).toEqual([
      {
        key: 'block2',
        index: 2,
        id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
        name: 'get_weather',
        arguments: '{"city": "Zürich", "days": [1, 2]}',
        complete: true,
      },
      { key: 'block3', index: 3, id: 'tooluse_Qm8xYz', name: 'now', arguments: '{}', complete: true },
    ]);
    expect(r.calls.filter((c) => c[0] === 'toolArguments')).toEqual([
      [
        'toolArguments',
        'block2',
        '{"city": "Z',
        { index: 2, id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather' },
      ],
      [
        'toolArguments',
        'block2',
        'ürich", "days": [1, 2]}',
        { index: 2, id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q', name: 'get_weather' },
      ],
      ['toolArguments', 'block3', '{}', { index: 3, id: 'tooluse_Qm8xYz', name: 'now' }],
    ]);
    // Input counts cache reads, as for Anthropic; the total is Bedrock's.
    expect(r.usage).toEqual({ inputTokens: 1410, outputTokens: 96, totalTokens: 1506 });
    expect(r).toMatchObject({ finishReason: 'tool_use', model: undefined, error: undefined, diagnostics: [] });
    expect(r.metadata.at(-1)).toEqual({
      provider: 'bedrock',
      finishReason: 'tool_use',
      usage: { inputTokens: 1410, outputTokens: 96, totalTokens: 1506 },
    });
  });

  test('the metadata event after messageStop is read; a body cut before messageStop is truncated', () => {
    const r = decodeBytes(frames(...TEXT_EVENTS));
    expect(r).toMatchObject({ text: 'Hello, wörld ☕', finishReason: 'end_turn', diagnostics: [] });
    expect(r.usage).toEqual({ inputTokens: 4, outputTokens: 5, totalTokens: 9 });
    const cut = decodeBytes(frames(...TEXT_EVENTS.slice(0, 3)));
    expect(cut.text).toBe('Hello, wörld ☕');
    expect(cut.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['truncated', 'the stream ended before messageStop'],
    ]);
  });

  test('a body cut inside a frame is truncated, naming the frame, where it starts', () => {
    const whole = frames(...TEXT_EVENTS);
    const first = eventFrame(TEXT_EVENTS[0] as Record<string, unknown>).length;
    const r = decodeBytes(whole.subarray(0, first + 20));
    expect(r.text).toBe('');
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.offset])).toEqual([
      ['truncated', 2, first],
      ['truncated', 3, first + 20],
    ]);
    expect(r.diagnostics[0]?.message).toMatch(
      /^the stream ended inside event-stream frame 2: 20 of \d+ bytes arrived$/,
    );
  });

  test('guardrail_intervened is a provider error; the finish reason stays as sent', () => {
    const r = decodeBytes(
      frames(
        { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Sorry' } } },
        { messageStop: { stopReason: 'guardrail_intervened' } },
      ),
    );
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['provider-error', 'provider error (guardrail_intervened): the response was withheld'],
    ]);
    expect(r.finishReason).toBe('guardrail_intervened');
  });
});

describe('errors are provider-error diagnostics', () => {
  test('an exception frame: the text before it, the exception name as the code', () => {
    const r = decodeBytes(binary('bedrock-throttling'));
    expect(r.text).toBe('The first part');
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.message])).toEqual([
      [
        'provider-error',
        3,
        'provider error (throttlingException): Too many requests, please wait before trying again.',
      ],
    ]);
    expect(r).toMatchObject({
      finishReason: 'error',
      error: { message: 'Too many requests, please wait before trying again.', code: 'throttlingException' },
    });
    // The same event as a JSON line.
    expect(decode(jsonLines(...eventsOf('bedrock-throttling'))).error).toEqual(r.error);
  });

  test('an error frame (:error-code, :error-message) is a provider error', () => {
    const r = decodeBytes(
      concat([
        eventFrame({ contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'a' } } }),
        frame({ ':message-type': 'error', ':error-code': 'InternalFailure', ':error-message': 'boom' }, ''),
      ]),
    );
    expect(r.diagnostics.map((d) => [d.reason, d.message])).toEqual([
      ['provider-error', 'provider error (InternalFailure): boom'],
    ]);
  });

  test('an exception whose payload is not JSON keeps the payload as the message', () => {
    const r = decodeBytes(
      frame({ ':message-type': 'exception', ':exception-type': 'validationException' }, 'bad <input>'),
    );
    expect(r.error).toEqual({ message: 'bad <input>', code: 'validationException' });
    expect(r.provider).toBe('bedrock');
  });
});

describe('damaged frames are diagnostics, never a crash', () => {
  const good = frames(...TEXT_EVENTS);
  const starts: number[] = [];
  {
    let at = 0;
    for (const e of TEXT_EVENTS) {
      starts.push(at);
      at += eventFrame(e).length;
    }
  }

  test('a frame whose message CRC is wrong is skipped; the frames after it are read', () => {
    const bad = good.slice();
    const second = starts[1] as number;
    bad[second + 40] = (bad[second + 40] as number) ^ 0xff; // inside the second frame's payload
    const r = decodeBytes(bad);
    expect(r.text).toBe('wörld ☕');
    expect(brief(r).map((d) => d.slice(0, 3))).toEqual([['syntax', 2, second]]);
    expect(r.diagnostics[0]?.message).toMatch(/^event-stream frame 2 is corrupt \(.*checksum.*\); skipped$/);
    expect(r).toMatchObject({ finishReason: 'end_turn', usage: { totalTokens: 9 } });
  });

  test('bytes that are not a frame are skipped up to the next valid prelude, reported once', () => {
    const second = starts[1] as number;
    const garbage = new TextEncoder().encode('<html>502 Bad Gateway</html>\x00\x00\x00');
    const body = concat([good.subarray(0, second), garbage, good.subarray(second)]);
    const r = decodeBytes(body);
    expect(r.text).toBe('Hello, wörld ☕');
    expect(brief(r)).toEqual([
      [
        'syntax',
        2,
        second,
        'bytes that are not an event-stream frame (wrong prelude length or CRC); skipped up to the next valid frame',
      ],
    ]);
    expect(r).toMatchObject({ finishReason: 'end_turn', usage: { totalTokens: 9 } });
  });

  test('a wrong prelude CRC: the frame is not trusted; decoding resumes at the next frame', () => {
    const bad = good.slice();
    const third = starts[2] as number;
    bad[third + 9] = (bad[third + 9] as number) ^ 1; // the third frame's prelude CRC
    const r = decodeBytes(bad);
    expect(r.text).toBe('Hello, ');
    expect(r.diagnostics.map((d) => [d.reason, d.offset])).toEqual([['syntax', third]]);
    expect(r.finishReason).toBe('end_turn');
  });

  test('a frame longer than maxEventLength is discarded with too-long, not kept; the rest is read', () => {
    const big = eventFrame({ contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'x'.repeat(500) } } });
    const body = concat([eventFrame(TEXT_EVENTS[1] as Record<string, unknown>), big, frames(...TEXT_EVENTS.slice(2))]);
    const r = decodeBytes(body, 'bedrock', 300);
    expect(r.text).toBe('Hello, wörld ☕');
    expect(r.diagnostics.map((d) => [d.reason, d.line, d.message])).toEqual([
      ['too-long', 2, `event-stream frame of ${big.length} bytes is longer than maxEventLength (300 bytes); discarded`],
    ]);
    expect(r.finishReason).toBe('end_turn');
  });

  test('a payload that is not JSON, and a message type the decoder does not know, are reported', () => {
    const r = decodeBytes(
      concat([
        frame({ ':message-type': 'event', ':event-type': 'contentBlockDelta' }, '{"contentBlockIndex":'),
        frame({ ':message-type': 'ping' }, ''),
        good,
      ]),
    );
    expect(r.text).toBe('Hello, wörld ☕');
    expect(r.diagnostics.map((d) => [d.reason, d.line])).toEqual([
      ['syntax', 1],
      ['unrecognized', 2],
    ]);
  });
});

describe('bytes and text', () => {
  test('under another input, bytes are handed back to be decoded as text', () => {
    const decoder = createProviderDecoder({ input: 'openai' }, { text() {}, diagnostic() {} });
    expect(decoder.bytes(frames(...TEXT_EVENTS))).toBe(false);
    const auto = createProviderDecoder({ input: 'auto' }, { text() {}, diagnostic() {} });
    expect(auto.bytes(new TextEncoder().encode('data: {}\n\n'))).toBe(false);
    // The first piece decided: text stays text.
    expect(auto.bytes(frames(...TEXT_EVENTS))).toBe(false);
    // An empty piece decides nothing.
    const bedrock = createProviderDecoder({ input: 'bedrock' }, { text() {}, diagnostic() {} });
    expect(bedrock.bytes(new Uint8Array(0))).toBe(false);
    expect(bedrock.bytes(frames(...TEXT_EVENTS))).toBe(true);
  });

  test('a string written after a binary start is taken as its UTF-8 bytes; an empty one is nothing', () => {
    // A frame whose every byte (CRCs included) is ASCII survives as a string: find one.
    let ascii: Uint8Array | undefined;
    let word = '';
    for (let i = 0; ascii === undefined && i < 100_000; i++) {
      // Both CRCs must be ASCII: the prelude's varies with the length, the message's with the text.
      // (and the length's bytes too: below 0x80 each).
      word = `${'k'.repeat(1 + (i % 300))}${i}`;
      const f = frame(
        { ':event-type': 'contentBlockDelta' },
        JSON.stringify({ contentBlockIndex: 0, delta: { text: word } }),
      );
      if (f.every((b) => b < 0x80)) ascii = f;
    }
    if (ascii === undefined) throw new Error('no all-ASCII frame found');
    let text = '';
    const decoder = createProviderDecoder({ input: 'auto' }, { text: (t) => (text += t), diagnostic() {} });
    expect(decoder.bytes(frames({ messageStart: { role: 'assistant' } }))).toBe(true);
    decoder.write('');
    decoder.write(String.fromCharCode(...ascii));
    decoder.end();
    expect(text).toBe(word);
  });

  test('a text body that starts with a byte-order mark or whitespace is text', () => {
    const r = decodeBytes(new TextEncoder().encode(`\uFEFF\n${jsonLines(...TEXT_EVENTS)}`));
    expect(r).toMatchObject({ provider: 'bedrock', text: 'Hello, wörld ☕', diagnostics: [] });
  });
});

describe('any byte stream', () => {
  const event = fc.oneof(
    fc.record({ messageStart: fc.record({ role: fc.constant('assistant') }) }),
    fc.record({
      contentBlockStart: fc.record({
        contentBlockIndex: fc.nat(2),
        start: fc.record({ toolUse: fc.record({ toolUseId: fc.constantFrom('a', 'b'), name: fc.constant('f') }) }),
      }),
    }),
    fc.record({
      contentBlockDelta: fc.record({
        contentBlockIndex: fc.nat(2),
        delta: fc.oneof(
          fc.record({ text: fc.string({ maxLength: 6 }) }),
          fc.record({
            toolUse: fc.record({ input: fc.oneof(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 })) }),
          }),
          fc.record({ reasoningContent: fc.record({ text: fc.string({ maxLength: 6 }) }) }),
        ),
      }),
    }),
    fc.record({ contentBlockStop: fc.record({ contentBlockIndex: fc.nat(2) }) }),
    fc.record({
      messageStop: fc.record({ stopReason: fc.constantFrom('end_turn', 'tool_use', 'guardrail_intervened') }),
    }),
    fc.record({ metadata: fc.record({ usage: fc.record({ inputTokens: fc.nat(), outputTokens: fc.nat() }) }) }),
    fc.record({ throttlingException: fc.record({ message: fc.string() }) }),
  );
  /** Frames, some damaged (a flipped byte), with random bytes between some of them. */
  const body = fc
    .array(
      fc
        .tuple(event, fc.option(fc.nat(), { nil: undefined }), fc.uint8Array({ maxLength: 6 }))
        .map(([e, flip, junk]) => {
          const f = eventFrame(e as Record<string, unknown>).slice();
          if (flip !== undefined) f[flip % f.length] = (f[flip % f.length] as number) ^ 0x5a;
          return concat([f, junk]);
        }),
      { maxLength: 8 },
    )
    .map(concat);

  fcTest.prop([body.chain((b) => fc.tuple(fc.constant(b), splitPoints(b.length), fc.constantFrom(40, 200, 100_000)))], {
    numRuns,
  })('never throws, any split agrees, pieces concatenate to each call, bounded frames', ([b, points, max]) => {
    const whole = runBytes([b], 'bedrock', max);
    expect(runBytes(splitAt(b, points), 'bedrock', max)).toEqual(whole);
    expect(runBytes([b], 'auto', max).calls.length).toBeGreaterThan(0);
    for (const call of whole.toolCalls) expect(whole.tools[call.key] ?? '').toBe(call.arguments);
  });

  fcTest.prop([fc.uint8Array({ maxLength: 300 }).chain((b) => fc.tuple(fc.constant(b), splitPoints(b.length)))], {
    numRuns,
  })('random bytes: never throws, any split agrees', ([b, points]) => {
    expect(runBytes(splitAt(b, points), 'bedrock')).toEqual(runBytes([b], 'bedrock'));
  });
});
