/**
 * `--input auto`, the default of every stream mode: a provider's streamed body is decoded
 * without a flag, and anything else reads exactly as with `--input text` (input-sniff.ts) —
 * whole, at every small chunk size, and under arbitrary splits of stdin's bytes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { test as fcTest } from '@fast-check/vitest';
import { main } from '@llmjson/cli';
import { ProviderFormat } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { chunkBytes, numRuns, splitAt, splitPoints, utf8 } from '../../../test/support/chunking.js';
import { type CliRun, runCli } from '../../../test/support/cli.js';
import { openAISse } from '../../../test/support/provider.js';
import { decideInput, SNIFF_LIMIT } from '../src/input-sniff.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PROVIDERS = join(ROOT, 'fixtures/providers');

const run = (argv: string[], body: string | Uint8Array, byteChunk = 0): Promise<CliRun> => {
  const bytes = typeof body === 'string' ? utf8.encode(body) : body;
  return runCli(argv, { stdin: byteChunk === 0 ? [bytes] : chunkBytes(bytes, byteChunk) });
};
const same = (a: CliRun, b: CliRun) => {
  expect({ code: a.code, out: a.out, err: a.err }).toEqual({ code: b.code, out: b.out, err: b.err });
};
const SIZES = [0, 1, 2, 3, 5, 7, 64];

const JSONL = '{"a": 1}\n{"a": 2, "note": "café ☕"}\nnot json\n{"a": 3}\n';
const DOCUMENT = '{\n  "title": "Soup 🍲",\n  "items": [{"n": 1}, {"n": 2}]\n}\n';
const ONE_LINE_DOCUMENT = '{"title": "Soup", "items": [{"n": 1}, {"n": 2}]}';
const PROSE = 'Here is the answer:\n```json\n{"ok": true}\n```\nand also {"b": [1, 2]} inline.\n';

/** Text that starts like a provider stream without being one: each must read as text. */
const LOOKALIKES: Record<string, string> = {
  'data: followed by prose': 'data: the results show {"a": 1}\n',
  'event: then a line that is not data:': 'event: concert\nwhere: {"a": 1}\n',
  'a comment-like first line': ':)\n{"a": 1}\n',
  'YAML-ish id: lines': 'id: 5\nname: {"a": 1}\n',
  'an unterminated comment-like line (the input ends on it)': ':) {"a": 1}',
  'an unterminated event: line': 'event: done',
  'a JSONL object shaped like an Ollama line without a model': '{"response": "yes", "done": true}\n{"a": 1}\n',
  'a JSONL object naming a model but no provider event': '{"model": "gpt-4o", "score": 3}\n',
  'an array': '[{"a": 1}, {"a": 2}]\n',
  'an empty input': '',
  'blank lines only': '\n\n  \n',
};

describe('text reads as with --input text (no flag)', () => {
  const cases: [string, string, string[]][] = [
    ['jsonl', JSONL, ['jsonl']],
    ['a JSON document', DOCUMENT, ['json']],
    ['a one-line JSON document (partial)', ONE_LINE_DOCUMENT, ['partial', '--emit', 'snapshots']],
    ['a one-line JSON document (elements)', ONE_LINE_DOCUMENT, ['elements', '--path', '$.items']],
    ['prose (salvage)', PROSE, ['salvage']],
    ...Object.entries(LOOKALIKES).map(([name, body]): [string, string, string[]] => [name, body, ['salvage']]),
    ...Object.entries(LOOKALIKES).map(([name, body]): [string, string, string[]] => [
      `${name} (jsonl)`,
      body,
      ['jsonl'],
    ]),
  ];
  test.each(cases)('%s', async (_name, body, argv) => {
    // partial prints a line per chunk the engine took: auto, having read ahead to decide, may
    // hand it the first chunks joined. The values, the last snapshot and stderr are the same.
    const compare =
      argv[0] === 'partial'
        ? (a: CliRun, b: CliRun) =>
            expect({ code: a.code, err: a.err, last: a.lines.at(-1) }).toEqual({
              code: b.code,
              err: b.err,
              last: b.lines.at(-1),
            })
        : same;
    const asText = await run([...argv, '--input', 'text'], body);
    for (const size of SIZES) compare(await run(argv, body, size), asText);
    compare(await run([...argv, '--input', 'auto'], body, 3), asText);
  });

  fcTest.prop([splitPoints(utf8.encode(JSONL).length)], { numRuns: Math.ceil(numRuns / 4) })(
    'jsonl under arbitrary splits of the bytes (empty chunks, inside UTF-8 characters)',
    async (points) => {
      const chunks = splitAt(utf8.encode(JSONL), points);
      const auto = await runCli(['jsonl'], { stdin: chunks });
      const asText = await runCli(['jsonl', '--input', 'text'], { stdin: [utf8.encode(JSONL)] });
      same(auto, asText);
    },
  );
});

describe('provider streams are decoded without a flag', () => {
  const fixtures = readdirSync(PROVIDERS).filter((f) => !f.startsWith('.'));
  const formats = Object.values(ProviderFormat) as string[];
  /** The fixture's format: the longest format name its file name starts with. */
  const formatOf = (file: string) =>
    formats.filter((f) => file.startsWith(`${f}-`)).sort((a, b) => b.length - a.length)[0] as string;

  test('every fixture is named after a format', () => {
    expect(fixtures.length).toBeGreaterThan(0);
    for (const file of fixtures) expect(formats, file).toContain(formatOf(file));
  });

  test.each(fixtures)('fixtures/providers/%s: the same as with its --input, in every mode', async (file) => {
    const body = readFileSync(join(PROVIDERS, file));
    for (const mode of ['json', 'partial', 'jsonl'] as const) {
      const named = await run([mode, '--input', formatOf(file)], body);
      for (const size of [0, 1, 7, 64]) same(await run([mode], body, size), named);
    }
  });

  const anthropicSse = (text: string) =>
    [
      [
        'message_start',
        { type: 'message_start', message: { id: 'm1', model: 'claude-x', usage: { input_tokens: 3 } } },
      ],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } }],
      ['message_stop', { type: 'message_stop' }],
    ]
      .map(([name, data]) => `event: ${name as string}\ndata: ${JSON.stringify(data)}\n\n`)
      .join('');
  const ollama = (text: string) =>
    `${[...text]
      .map(
        (c) =>
          `${JSON.stringify({ model: 'llama3', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: c }, done: false })}\n`,
      )
      .join(
        '',
      )}${JSON.stringify({ model: 'llama3', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' })}\n`;
  const responses = (text: string) =>
    [
      { type: 'response.created', sequence_number: 0, response: { id: 'r1', model: 'gpt-x', status: 'in_progress' } },
      { type: 'response.output_text.delta', sequence_number: 1, item_id: 'i1', output_index: 0, delta: text },
      {
        type: 'response.completed',
        sequence_number: 2,
        response: { id: 'r1', model: 'gpt-x', status: 'completed', usage: { input_tokens: 1, output_tokens: 2 } },
      },
    ]
      .map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)
      .join('');

  const aiSdk = (text: string) =>
    [
      { type: 'start' },
      { type: 'start-step', request: {}, warnings: [] },
      { type: 'text-start', id: '0' },
      ...[...text].map((c) => ({ type: 'text-delta', id: '0', text: c })),
      { type: 'text-end', id: '0' },
      { type: 'finish-step', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
      { type: 'finish', finishReason: 'stop', totalUsage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
    ]
      .map((part) => `${JSON.stringify(part)}\n`)
      .join('');
  const agUiEvents = (text: string) => [
    { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
    { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
    ...(text.match(/[\s\S]{1,3}/g) ?? []).map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta })),
    { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
    { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' },
  ];
  const agUiLines = (text: string) =>
    agUiEvents(text)
      .map((e) => `${JSON.stringify(e)}\n`)
      .join('');
  const agUiSse = (text: string) =>
    agUiEvents(text)
      .map((e) => `data: ${JSON.stringify(e)}\n\n`)
      .join('');
  const geminiArray = (text: string) => {
    const pieces = text.match(/[\s\S]{1,5}/g) ?? [];
    const events = pieces.map((piece, i) => ({
      candidates: [
        {
          content: { parts: [{ text: piece }], role: 'model' },
          index: 0,
          ...(i === pieces.length - 1 ? { finishReason: 'STOP' } : {}),
        },
      ],
      modelVersion: 'gemini-2.5-flash',
    }));
    return `[${events.map((e) => JSON.stringify(e, null, 2)).join('\n,\r\n')}\n]`;
  };

  const bodies: [string, string, string][] = [
    ['openai', openAISse(JSONL, 'stop'), 'OpenAI chat SSE'],
    ['openai', `: OPENROUTER PROCESSING\n\n${openAISse(JSONL, 'stop')}`, 'SSE after a keep-alive comment'],
    ['anthropic', anthropicSse(JSONL), 'Anthropic SSE (event: lines first)'],
    ['openai-responses', responses(JSONL), 'OpenAI Responses SSE'],
    ['ollama', ollama(JSONL), 'Ollama NDJSON'],
    ['ai-sdk', aiSdk(JSONL), 'AI SDK fullStream parts (JSON lines, opened by the start part)'],
    ['ai-sdk', aiSdk(JSONL).slice(aiSdk(JSONL).indexOf('\n') + 1), 'AI SDK fullStream parts, without the start part'],
    ['gemini', geminiArray(JSONL), "Gemini's JSON array (streamGenerateContent without alt=sse)"],
    ['ag-ui', agUiSse(JSONL), 'AG-UI events as an agent sends them (SSE)'],
    ['ag-ui', agUiLines(JSONL), 'AG-UI events one per line (as fromAgUi writes them)'],
  ];
  test.each(bodies)('%s: %s', async (format, body) => {
    const fromText = await run(['jsonl', '--input', 'text'], JSONL);
    const named = await run(['jsonl', '--input', format], body);
    expect(named.lines).toEqual(fromText.lines);
    for (const size of SIZES) same(await run(['jsonl'], body, size), named);
  });

  fcTest.prop([splitPoints(utf8.encode(ollama(JSONL)).length)], { numRuns: Math.ceil(numRuns / 4) })(
    'Ollama NDJSON under arbitrary splits of the bytes',
    async (points) => {
      const bytes = utf8.encode(ollama(JSONL));
      same(
        await runCli(['jsonl'], { stdin: splitAt(bytes, points) }),
        await runCli(['jsonl', '--input', 'ollama'], { stdin: [bytes] }),
      );
    },
  );

  test('the regression: an SSE stream fed to jsonl without --input prints its objects, never nothing', async () => {
    const r = await run(['jsonl'], openAISse('{"a": 1}\n{"a": 2}\n', 'stop'), 5);
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([{ a: 1 }, { a: 2 }]);
    expect(r.err).toBe('');
  });

  test('an SSE stream of an unknown provider is reported, not read as nothing', async () => {
    const r = await run(['jsonl'], 'data: {"foo": "bar"}\n\ndata: {"foo": "baz"}\n\n');
    expect(r.out).toBe('');
    expect(r.code).not.toBe(0);
    expect(r.err).not.toBe('');
  });
});

describe('--input text forces text', () => {
  test('an SSE body read as text: its data lines are prose, nothing is decoded', async () => {
    const body = openAISse('{"a": 1}\n', 'stop');
    const r = await run(['jsonl', '--input', 'text'], body, 7);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/prose/);
    const s = await run(['salvage', '--input', 'text'], body);
    // The events themselves are JSON values in prose: salvage finds them as they are.
    expect((s.lines[0] as { object?: string }).object).toBe('chat.completion.chunk');
  });
});

describe('--input choices', () => {
  test("are core's ProviderFormat plus text and auto; auto is the default", async () => {
    const help = (await runCli(['jsonl', '--help'])).out.replace(/\s+/g, ' ');
    const choices = /\(choices: ([^)]*), default: "auto"\)/.exec(help.slice(help.indexOf('--input')))?.[1];
    expect(choices?.split(', ').map((c) => JSON.parse(c) as string)).toEqual([
      'auto',
      'text',
      ...Object.values(ProviderFormat),
    ]);
  });
});

describe('the decision rule', () => {
  test('text that cannot start a provider stream is decided on its first character', () => {
    for (const start of ['H', '`', '"', '1', 'x']) expect(decideInput(start, false)).toEqual({ kind: 'text' });
    expect(decideInput('d', false)).toBeUndefined();
    expect(decideInput('dat', false)).toBeUndefined();
    expect(decideInput('dx', false)).toEqual({ kind: 'text' });
    expect(decideInput('data: {', false)).toEqual({ kind: 'sse' });
    expect(decideInput('data: t', false)).toEqual({ kind: 'text' });
  });

  test('a first line starting with "{" is text on a first key no provider event starts with', () => {
    expect(decideInput('{', false)).toBeUndefined();
    expect(decideInput('{"ti', false)).toBeUndefined();
    expect(decideInput('{"title"', false)).toEqual({ kind: 'text' });
    expect(decideInput('{ "answer": 1', false)).toEqual({ kind: 'text' });
    expect(decideInput('{1', false)).toEqual({ kind: 'text' });
    expect(decideInput('{}', false)).toEqual({ kind: 'text' });
  });

  test('else it waits for its line break, or SNIFF_LIMIT bytes', () => {
    expect(decideInput('{"type": "x"', false)).toBeUndefined();
    expect(decideInput('{"type": "x"}\n', false)).toEqual({ kind: 'text' });
    expect(decideInput('{"id": 1}', true)).toEqual({ kind: 'text' });
    expect(decideInput(`{"id": "${'x'.repeat(SNIFF_LIMIT)}`, false)).toEqual({ kind: 'text' });
    const ollamaLine = '{"model":"llama3","created_at":"t","message":{"role":"assistant","content":"x"},"done":false}';
    expect(decideInput(`${ollamaLine}\n`, false)).toEqual({ kind: 'json-lines', provider: 'ollama' });
  });

  test('an array is text on its first element, unless that is an object that may be a Gemini event', () => {
    for (const head of ['[1', '["a', '[[', '[ \n true', '[{"title"', '[\n  {\n    "answer": 1', '[{}']) {
      expect(decideInput(head, false), head).toEqual({ kind: 'text' });
    }
    for (const head of ['[', '[ \r\n', '[{', '[{\n  "cand', '[{"candidates": [{"content": {"parts"']) {
      expect(decideInput(head, false), head).toBeUndefined();
    }
    // The element once complete decides: a Gemini event naming its model, or text.
    const event = { candidates: [{ content: { parts: [{ text: '} ] "x' }] } }], modelVersion: 'gemini-2.5-flash' };
    expect(decideInput(`[${JSON.stringify(event, null, 2)}`, false)).toEqual({
      kind: 'json-array',
      provider: 'gemini',
    });
    expect(decideInput(`[${JSON.stringify(event)},`, false)).toEqual({ kind: 'json-array', provider: 'gemini' });
    // A model's own array whose objects happen to start with `candidates`.
    expect(decideInput('[{"candidates": ["Ada", "Grace"]}, {"candidates": []}]', false)).toEqual({ kind: 'text' });
    expect(decideInput('[{"candidates": [{"content": {}}]}]', false)).toEqual({ kind: 'text' });
    expect(decideInput('[{"candidates": [', true)).toEqual({ kind: 'text' });
  });

  test('AI SDK fullStream parts: a hyphenated part type, or the start part followed by one', () => {
    const part = '{"type":"text-delta","id":"0","text":"{\\"a\\": 1}"}';
    expect(decideInput(`${part}\n`, false)).toEqual({ kind: 'json-lines', provider: 'ai-sdk' });
    expect(decideInput('{"type":"start"}\n', false)).toBeUndefined();
    expect(decideInput('{"type":"start"}\n{"type":"start-step","request":{},"warnings":[]}\n', false)).toEqual({
      kind: 'json-lines',
      provider: 'ai-sdk',
    });
    // An answer's own lines: a type without a hyphen, or a start line followed by anything else.
    expect(decideInput('{"type": "start"}\n{"type": "finish"}\n', false)).toEqual({ kind: 'text' });
    expect(decideInput('{"type": "start"}\n{"a": 1}\n', false)).toEqual({ kind: 'text' });
    expect(decideInput('{"type": "start"}\nplain\n', false)).toEqual({ kind: 'text' });
    expect(decideInput('{"type": "start"}', true)).toEqual({ kind: 'text' });
    expect(decideInput('{"type": "start"}\n', true)).toEqual({ kind: 'text' });
    expect(decideInput('{"type": "finish", "finishReason": "stop"}\n', false)).toEqual({ kind: 'text' });
  });

  test('AG-UI event lines: a protocol event type carrying one of its ids', () => {
    expect(decideInput('{"type":"RUN_STARTED","threadId":"t1","runId":"r1"}\n', false)).toEqual({
      kind: 'json-lines',
      provider: 'ag-ui',
    });
    expect(decideInput('{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"f"}\n', false)).toEqual({
      kind: 'json-lines',
      provider: 'ag-ui',
    });
    // An answer's own line that happens to use a protocol word as its type, with no protocol id.
    expect(decideInput('{"type": "CUSTOM", "name": "x"}\n', false)).toEqual({ kind: 'text' });
    expect(decideInput('{"type": "RUN_STARTED", "threadId": 7}\n', false)).toEqual({ kind: 'text' });
  });

  test('an AWS event stream (Bedrock) is never read as text', () => {
    const prelude = '\x00\x00\x00\x9b\x00\x00\x00\x4b\x12\x34\x56\x78\x0b:event-type\x07\x00\x0cmessageStart';
    expect(decideInput(prelude, false)).toEqual({ kind: 'event-stream' });
  });

  test('plain text is printed before the input ends: the decision does not wait for it', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    const first = new Promise<void>((resolve) => {
      stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve();
      });
    });
    const done = main(['salvage'], { stdin, stdout, stderr, cwd: ROOT, env: {} });
    stdin.write('Here it is: {"a": 1} and');
    await first;
    expect(out).toBe('{"a":1}\n');
    stdin.end(' more.\n');
    expect(await done).toBe(0);
  });
});
