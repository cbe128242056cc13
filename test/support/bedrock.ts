/**
 * Bedrock ConverseStream and InvokeModelWithResponseStream bodies for tests: events (one JSON
 * object per event, `{name: payload}`) as the binary AWS event-stream frames Bedrock sends,
 * encoded by `@smithy/eventstream-codec` (a dependency of @llmjson/core, resolved from there),
 * or as JSON lines (the unframed form); a model's own events as the InvokeModel `chunk` events
 * that carry them (`invokeChunks`), and back (`chunkEvents`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

interface FrameCodec {
  encode(message: { headers: Record<string, { type: 'string'; value: string }>; body: Uint8Array }): Uint8Array;
}
const { EventStreamCodec } = createRequire(join(import.meta.dirname, '../../packages/core/package.json'))(
  '@smithy/eventstream-codec',
) as { EventStreamCodec: new (toUtf8: (b: Uint8Array) => string, fromUtf8: (s: string) => Uint8Array) => FrameCodec };
const codec = new EventStreamCodec(
  (b) => new TextDecoder().decode(b),
  (t) => new TextEncoder().encode(t),
);

const FIXTURES = join(import.meta.dirname, '../../fixtures/providers');

/**
 * `events` as binary frames: an `...Exception` event as an `exception` frame, any other as an
 * `event` frame (`contentType`: the `:content-type` header, when given).
 */
export function framesOf(events: readonly Record<string, unknown>[], contentType?: string): Uint8Array {
  const header = (value: string) => ({ type: 'string' as const, value });
  const frames = events.map((event) => {
    const [type, payload] = Object.entries(event)[0] as [string, unknown];
    const headers: Record<string, { type: 'string'; value: string }> = type.endsWith('Exception')
      ? { ':message-type': header('exception'), ':exception-type': header(type) }
      : { ':message-type': header('event'), ':event-type': header(type) };
    if (contentType !== undefined) headers[':content-type'] = header(contentType);
    return codec.encode({ headers, body: new TextEncoder().encode(JSON.stringify(payload)) });
  });
  const out = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) {
    out.set(f, at);
    at += f.length;
  }
  return out;
}

/** The events of fixtures/providers/<name>.sse. */
export function fixtureEvents(name: string): Record<string, unknown>[] {
  return readFileSync(join(FIXTURES, `${name}.sse`), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

/** The events of fixtures/providers/<name>.sse as the binary frames Bedrock sends. */
export const bedrockFrames = (name: string): Uint8Array => framesOf(fixtureEvents(name));

/** The events of fixtures/providers/<name>.sse as JSON lines (the unframed form). */
export const bedrockLines = (name: string): string =>
  fixtureEvents(name)
    .map((event) => `${JSON.stringify(event)}\n`)
    .join('');

/**
 * A model's own streaming events as InvokeModelWithResponseStream sends them: one
 * `{"chunk": {"bytes": "<base64 of the event's JSON>"}}` event each.
 */
export function invokeChunks(events: readonly unknown[]): Record<string, unknown>[] {
  return events.map((event) => ({
    chunk: { bytes: Buffer.from(JSON.stringify(event), 'utf8').toString('base64') },
  }));
}

/** The model events `chunk` events carry (the inverse of `invokeChunks`; other events left out). */
export function chunkEvents(events: readonly Record<string, unknown>[]): unknown[] {
  return events
    .map((event) => event.chunk)
    .filter((chunk): chunk is { bytes: string } => typeof chunk === 'object' && chunk !== null)
    .map((chunk) => JSON.parse(Buffer.from(chunk.bytes, 'base64').toString('utf8')) as unknown);
}
