/**
 * Provider stream throughput: one answer (1 MB of text; 100 KB with --quick) streamed as 4-byte
 * text deltas, one event per delta, in each wire format the provider decoder reads, delivered
 * to `createProviderDecoder` in 64 KiB reads (network-sized). What it costs to turn a model
 * server's body into answer text, per format: events per second, and time relative to the
 * OpenAI chat format (the most common, and the reference). Every entrant must deliver the
 * answer exactly before it is timed. Besides one row per format, rows for the other bodies a
 * format comes in: Gemini's JSON array (no `alt=sse`), and Bedrock's binary AWS event-stream
 * frames (ConverseStream, and InvokeModelWithResponseStream carrying Anthropic events), fed as
 * bytes through `decoder.bytes` as the stream adapters do.
 */

import { createRequire } from 'node:module';
import { createProviderDecoder, type ProviderFormat } from '@llmjson/core';
import { type Entrant, Layer } from '../entrants.js';
import { compare, ratio } from '../harness.js';
import { blockChunks, random } from '../inputs.js';
import { formatSize, formatSpread } from '../report.js';
import type { Case, Scenario, Table } from '../scenario.js';

const FULL_SIZE = 1_000_000;
const QUICK_SIZE = 100_000;
const DELTA = 4;

/** A body: the events that carry `deltas`, in one wire format. */
type BodyOf = (deltas: readonly string[]) => string;

const sse = (event: unknown, name?: string) =>
  `${name === undefined ? '' : `event: ${name}\n`}data: ${JSON.stringify(event)}\n\n`;

const openaiChunk = (model: string, delta: object, finish: string | null = null) => ({
  id: 'chatcmpl-bench',
  object: 'chat.completion.chunk',
  created: 1,
  model,
  choices: [{ index: 0, delta, finish_reason: finish }],
});

const BODIES: Readonly<Record<Exclude<ProviderFormat, never>, BodyOf>> = {
  openai: (deltas) =>
    sse(openaiChunk('gpt-bench', { role: 'assistant', content: '' })) +
    deltas.map((d) => sse(openaiChunk('gpt-bench', { content: d }))).join('') +
    sse(openaiChunk('gpt-bench', {}, 'stop')) +
    'data: [DONE]\n\n',
  mistral: (deltas) =>
    sse(openaiChunk('mistral-bench', { role: 'assistant', content: '' })) +
    deltas.map((d) => sse(openaiChunk('mistral-bench', { content: [{ type: 'text', text: d }] }))).join('') +
    sse(openaiChunk('mistral-bench', {}, 'stop')) +
    'data: [DONE]\n\n',
  'openai-responses': (deltas) =>
    sse(
      { type: 'response.created', response: { id: 'resp_1', status: 'in_progress', model: 'gpt-bench' } },
      'response.created',
    ) +
    deltas
      .map((d) =>
        sse(
          { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: d },
          'response.output_text.delta',
        ),
      )
      .join('') +
    sse(
      {
        type: 'response.completed',
        response: {
          id: 'resp_1',
          status: 'completed',
          model: 'gpt-bench',
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
      'response.completed',
    ),
  anthropic: (deltas) =>
    sse(
      { type: 'message_start', message: { model: 'claude-bench', usage: { input_tokens: 1, output_tokens: 1 } } },
      'message_start',
    ) +
    sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start') +
    deltas
      .map((d) =>
        sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: d } }, 'content_block_delta'),
      )
      .join('') +
    sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop') +
    sse({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }, 'message_delta') +
    sse({ type: 'message_stop' }, 'message_stop'),
  ollama: (deltas) =>
    deltas
      .map(
        (d) => `${JSON.stringify({ model: 'llama-bench', message: { role: 'assistant', content: d }, done: false })}\n`,
      )
      .join('') +
    `${JSON.stringify({ model: 'llama-bench', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' })}\n`,
  gemini: (deltas) =>
    deltas.map((d) => sse({ candidates: [{ content: { role: 'model', parts: [{ text: d }] }, index: 0 }] })).join('') +
    sse({
      candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
      modelVersion: 'gemini-bench',
    }),
  cohere: (deltas) =>
    sse({ type: 'message-start', id: 'm1', delta: { message: { role: 'assistant' } } }, 'message-start') +
    sse(
      { type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } },
      'content-start',
    ) +
    deltas
      .map((d) =>
        sse({ type: 'content-delta', index: 0, delta: { message: { content: { text: d } } } }, 'content-delta'),
      )
      .join('') +
    sse({ type: 'content-end', index: 0 }, 'content-end') +
    sse(
      {
        type: 'message-end',
        delta: { finish_reason: 'COMPLETE', usage: { tokens: { input_tokens: 1, output_tokens: 1 } } },
      },
      'message-end',
    ),
  'ai-sdk': (deltas) =>
    [
      { type: 'start' },
      { type: 'start-step', request: {}, warnings: [] },
      { type: 'text-start', id: '0' },
      ...deltas.map((text) => ({ type: 'text-delta', id: '0', text })),
      { type: 'text-end', id: '0' },
      { type: 'finish-step', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
      { type: 'finish', finishReason: 'stop', totalUsage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
    ]
      .map((part) => `${JSON.stringify(part)}\n`)
      .join(''),
  'ag-ui': (deltas) =>
    sse({ type: 'RUN_STARTED', threadId: 't', runId: 'r' }) +
    sse({ type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }) +
    deltas.map((delta) => sse({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta })).join('') +
    sse({ type: 'TEXT_MESSAGE_END', messageId: 'm' }) +
    sse({ type: 'RUN_FINISHED', threadId: 't', runId: 'r' }),
  bedrock: (deltas) =>
    `${JSON.stringify({ messageStart: { role: 'assistant' } })}\n` +
    deltas
      .map((d) => `${JSON.stringify({ contentBlockDelta: { contentBlockIndex: 0, delta: { text: d } } })}\n`)
      .join('') +
    `${JSON.stringify({ contentBlockStop: { contentBlockIndex: 0 } })}\n` +
    `${JSON.stringify({ messageStop: { stopReason: 'end_turn' } })}\n` +
    `${JSON.stringify({ metadata: { usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } } })}\n`,
};

const FORMATS = Object.keys(BODIES) as ProviderFormat[];
const name = (format: ProviderFormat, form?: string) =>
  `createProviderDecoder, input '${format}'${form === undefined ? '' : ` (${form})`}`;

interface FrameCodec {
  encode(message: { headers: Record<string, { type: 'string'; value: string }>; body: Uint8Array }): Uint8Array;
}

/** The AWS event-stream codec core depends on (resolved from core, as it is not a dependency here). */
function frameCodec(): FrameCodec {
  const core = createRequire(import.meta.url).resolve('@llmjson/core');
  const { EventStreamCodec } = createRequire(core)('@smithy/eventstream-codec') as {
    EventStreamCodec: new (toUtf8: (b: Uint8Array) => string, fromUtf8: (s: string) => Uint8Array) => FrameCodec;
  };
  return new EventStreamCodec(
    (b) => Buffer.from(b).toString('utf8'),
    (t) => Buffer.from(t, 'utf8'),
  );
}

/** Bedrock's binary body: each `{eventType: payload}` one `event` frame. */
function frames(events: readonly Record<string, unknown>[]): Buffer {
  const codec = frameCodec();
  const header = (value: string) => ({ type: 'string' as const, value });
  return Buffer.concat(
    events.map((event) => {
      const [type, payload] = Object.entries(event)[0] as [string, unknown];
      return codec.encode({
        headers: {
          ':message-type': header('event'),
          ':event-type': header(type),
          ':content-type': header('application/json'),
        },
        body: Buffer.from(JSON.stringify(payload), 'utf8'),
      });
    }),
  );
}

const lines = (body: string) =>
  body
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The Anthropic Messages events of `deltas`, each as an InvokeModel `chunk` (base64 JSON). */
const invokeAnthropic = (deltas: readonly string[]) =>
  [
    { type: 'message_start', message: { model: 'claude-bench', usage: { input_tokens: 1, output_tokens: 1 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ...deltas.map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
    { type: 'message_stop' },
  ].map((event) => ({ chunk: { bytes: Buffer.from(JSON.stringify(event), 'utf8').toString('base64') } }));

/** The other bodies a format comes in (see the header). */
const FORMS: readonly { format: ProviderFormat; form: string; body: (deltas: readonly string[]) => string | Buffer }[] =
  [
    {
      format: 'gemini',
      form: 'JSON array',
      body: (deltas) => {
        const events = lines(
          (BODIES.gemini as BodyOf)(deltas)
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n'),
        );
        return `[${events.map((e) => JSON.stringify(e, null, 2)).join('\n,\r\n')}\n]`;
      },
    },
    { format: 'bedrock', form: 'binary frames', body: (deltas) => frames(lines((BODIES.bedrock as BodyOf)(deltas))) },
    { format: 'bedrock', form: 'InvokeModel, Anthropic events', body: (deltas) => frames(invokeAnthropic(deltas)) },
  ];

/** The answer: words and multi-byte characters, as a model writes them. */
function answerText(size: number): string {
  const next = random(71);
  const words = [
    'the',
    'model',
    'streams',
    'tokens',
    'über',
    'naïve',
    '数据',
    'JSON',
    '🙂',
    'answer',
    '{"k": 1}',
    '\n',
  ];
  let text = '';
  while (text.length < size) text += `${words[Math.floor(next() * words.length)]} `;
  return text.slice(0, size);
}

/** `text` cut into deltas of DELTA characters (a surrogate pair kept whole). */
function deltasOf(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + DELTA);
    const c = text.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff && end < text.length) end++;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

function decoder(
  format: ProviderFormat,
  label: string,
  chunks: readonly (string | Uint8Array)[],
  events: number,
): Entrant & { events: number } {
  return {
    name: label,
    layer: Layer.engine,
    ours: format === 'openai',
    events,
    run() {
      let text = '';
      let diagnostics = 0;
      const d = createProviderDecoder(
        { input: format },
        {
          text(delta) {
            text += delta;
          },
          diagnostic() {
            diagnostics++;
          },
        },
      );
      for (const chunk of chunks) {
        if (typeof chunk === 'string') d.write(chunk);
        else if (!d.bytes(chunk)) throw new Error(`${label}: a binary body handed back as text`);
      }
      d.end();
      if (diagnostics !== 0) throw new Error(`${format}: ${diagnostics} diagnostics on a well-formed body`);
      return [text];
    },
  };
}

interface ProviderCase extends Case {
  readonly events: Readonly<Record<string, number>>;
  readonly bodies: Readonly<Record<string, number>>;
}

function cases(quick: boolean): ProviderCase[] {
  const answer = answerText(quick ? QUICK_SIZE : FULL_SIZE);
  const deltas = deltasOf(answer);
  const events: Record<string, number> = {};
  const bodies: Record<string, number> = {};
  const entrant = (format: ProviderFormat, label: string, body: string | Buffer) => {
    const chunks: (string | Uint8Array)[] = [];
    if (typeof body === 'string') chunks.push(...blockChunks(body).strings);
    else for (let i = 0; i < body.length; i += 65_536) chunks.push(body.subarray(i, i + 65_536));
    events[label] = deltas.length;
    bodies[label] = Buffer.byteLength(body);
    return { entrant: decoder(format, label, chunks, deltas.length), expected: [answer] };
  };
  const contestants = [
    ...FORMATS.map((format) => entrant(format, name(format), (BODIES[format] as BodyOf)(deltas))),
    ...FORMS.map(({ format, form, body }) => entrant(format, name(format, form), body(deltas))),
  ];
  return [
    {
      label: `${formatSize(Buffer.byteLength(answer))} answer in ${DELTA}-character deltas`,
      size: Buffer.byteLength(answer),
      contestants,
      events,
      bodies,
    },
  ];
}

export const providers: Scenario = {
  name: 'providers',
  title: 'Provider streams: the decoder on each wire format',
  about:
    `One answer (${formatSize(FULL_SIZE)}; ${formatSize(QUICK_SIZE)} with --quick) streamed as ${DELTA}-character text deltas, one event per delta, ` +
    'in every wire format the provider decoder reads (OpenAI chat, Mistral content parts, OpenAI Responses, Anthropic Messages, Ollama NDJSON, ' +
    "Gemini SSE, Cohere v2, Bedrock ConverseStream as JSON lines, the AI SDK's fullStream parts as JSON lines), given to createProviderDecoder in 64 KiB reads; " +
    "and the other bodies a format comes in: Gemini's pretty-printed JSON array (streamGenerateContent without alt=sse), Bedrock's binary " +
    'event-stream frames (ConverseStream, and InvokeModelWithResponseStream chunks carrying Anthropic events), given as 64 KiB byte reads. ' +
    'Each entrant must deliver the answer exactly, with no diagnostic, before it is timed. Reported: time of one run, events per second, ' +
    'and time relative to the OpenAI chat format (the reference: the most common wire format).',
  cases,
  async run(context) {
    const [c] = cases(context.quick);
    if (c === undefined) throw new Error('no case');
    context.log(`providers: ${c.label}`);
    const timings = await compare(c.contestants, context.measure);
    const reference = timings.find((t) => t.name === name('openai'));
    const rows = timings.map((t) => {
      const events = c.events[t.name] ?? 0;
      const perSecond = events / (t.medianMs / 1000);
      return [
        t.name,
        formatSize(c.bodies[t.name] ?? 0),
        t.medianMs.toFixed(1),
        `${(perSecond / 1e6).toFixed(2)} M`,
        reference === undefined ? '—' : formatSpread(ratio(t, reference)),
      ];
    });
    const table: Table = {
      caption: `${c.label}: time of one run in ms (median over rounds), events per second, and time ÷ the OpenAI chat format's (medians, min–max over rounds when wide).`,
      header: ['format', 'body', 'ms', 'events/s', 'time ÷ OpenAI chat'],
      rows,
    };
    return {
      scenario: this.name,
      title: this.title,
      about: this.about,
      tables: [table],
      notes: [
        "A row's body size is its own: Gemini's JSON array is pretty-printed (about twice its SSE body), an InvokeModel chunk is base64 JSON in a frame.",
      ],
      data: { label: c.label, timings },
    };
  },
};
