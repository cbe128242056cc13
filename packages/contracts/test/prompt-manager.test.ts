import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { test as fcTest } from '@fast-check/vitest';
import {
  ContractConfigurationError,
  ContractValidationError,
  checkCatalog,
  createPromptManager,
  createSchemaRegistry,
  type Llm,
  type LlmRequest,
  parseVariables,
} from '@llmjson/contracts';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chunkText, numRuns, splitAt } from '../../../test/support/chunking.js';
import { thrownBy } from '../../../test/support/thrown.js';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/contracts/', import.meta.url));
const config = JSON.parse(readFileSync(join(FIXTURES, 'prompts.json'), 'utf8')) as unknown;
const registry = createSchemaRegistry({ roots: [join(FIXTURES, 'schemas/prompt-contracts')] });
const answer = (name: string) => readFileSync(join(FIXTURES, 'answers', `${name}.txt`), 'utf8');
const TEXT = { text: 'Mitochondria make ATP, which powers the cell.' };

/** A scripted model: streams a recorded answer in chunks of `size` characters, and records the request. */
function scripted(text: string, size = 3, extra: { finishReason?: string; model?: string } = {}) {
  const requests: LlmRequest[] = [];
  const llm: Llm = (request) => {
    requests.push(request);
    async function* output() {
      for (const chunk of chunkText(text, size)) {
        await Promise.resolve();
        yield chunk;
      }
    }
    return { output: output(), provider: 'scripted', usage: { output_tokens: 7 }, ...extra };
  };
  return { llm, requests };
}

const configError = (run: () => unknown): ContractConfigurationError => thrownBy(ContractConfigurationError, run);

const manager = createPromptManager(config, { registry });

describe('catalog check', () => {
  test('the fixture catalog passes, each schema from its root', () => {
    const report = checkCatalog(config, registry);
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.prompts.map((p) => [p.promptId, p.responseType, p.schema ?? null])).toEqual([
      ['extract-definitions', 'json', 'trustgraph.extract_definitions.v1'],
      ['extract-relationships', 'json', 'trustgraph.extract_relationships.v1'],
      ['agent-kg-extract', 'jsonl', 'trustgraph.agent_kg_extract.v1'],
      ['extract-ontology', 'jsonl', 'trustgraph.ontology_extract.v1'],
      ['section-text', 'json', 'tnh.sectioning.default_section.v1'],
      ['summarize', 'text', null],
    ]);
    expect(manager.check()).toEqual(report);
  });

  test('every problem is returned with its code and prompt id, without calling a model', () => {
    const broken = {
      prompts: {
        'no-schema': { prompt: 'x', 'response-type': 'json' },
        'no-schema-jsonl': { prompt: 'x', 'response-type': 'jsonl' },
        missing: { prompt: 'x', 'response-type': 'json', schema_ref: 'nothing.here.v1' },
        traversal: { prompt: 'x', 'response-type': 'json', schema_ref: '..etc.passwd' },
        invalid: { prompt: 'x', 'response-type': 'json', schema: { type: 'objekt' } },
        typo: { prompt: 'x', response_type: 'json' },
        template: { prompt: '{{#if x}}never closed', 'response-type': 'text' },
        fine: { prompt: 'x {{y}}' },
      },
    };
    const report = checkCatalog(broken, registry);
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => [p.promptId, p.code])).toEqual([
      ['typo', 'PROMPT_INVALID'],
      ['template', 'PROMPT_INVALID'],
      ['no-schema', 'SCHEMA_REF_MISSING'],
      ['no-schema-jsonl', 'SCHEMA_REF_MISSING'],
      ['missing', 'SCHEMA_NOT_FOUND'],
      ['traversal', 'SCHEMA_REF_INVALID'],
      ['invalid', 'SCHEMA_INVALID'],
    ]);
    expect(report.problems[0]?.message).toContain('did you mean "response-type"?');
    const dispatch = checkCatalog(
      {
        prompts: {
          d: {
            prompt: 'x',
            'response-type': 'jsonl',
            schema_ref: 'trustgraph.agent_kg_extract.v1',
            discriminator: 'nope',
          },
        },
      },
      registry,
    );
    expect(dispatch.problems.map((p) => p.code)).toEqual(['SCHEMA_INVALID']);
    expect(report.prompts.map((p) => p.promptId)).toEqual(['fine']);
  });
});

describe('before the call: configuration errors', () => {
  test('a malformed configuration is refused when the manager is created', () => {
    expect(configError(() => createPromptManager([1, 2])).code).toBe('PROMPT_INVALID');
    expect(
      configError(() => createPromptManager({ prompts: { a: { prompt: 'x', 'response-type': 'xml' } } })).message,
    ).toContain('"response-type" must be "text", "json" or "jsonl"');
  });

  test('schema problems throw before the model is called', async () => {
    const { llm, requests } = scripted('{}');
    const m = createPromptManager(
      {
        prompts: {
          missing: { prompt: 'x', 'response-type': 'json', schema_ref: 'no.such.v1' },
          bare: { prompt: 'x', 'response-type': 'jsonl' },
          invalid: { prompt: 'x', 'response-type': 'json', schema: { required: 'a' } },
        },
      },
      { registry },
    );
    for (const [id, code] of [
      ['missing', 'SCHEMA_NOT_FOUND'],
      ['bare', 'SCHEMA_REF_MISSING'],
      ['invalid', 'SCHEMA_INVALID'],
    ] as const) {
      const error = configError(() => m.stream(id, {}, llm));
      expect(error.code).toBe(code);
      expect(error.promptId).toBe(id);
      await expect(m.invoke(id, {}, llm)).rejects.toMatchObject({ code });
      await expect(m.run(id, {}, llm)).rejects.toBeInstanceOf(ContractConfigurationError);
    }
    expect(configError(() => m.stream('nope', {}, llm)).message).toContain('no prompt with id "nope"');
    expect(requests).toEqual([]);
  });

  test('variables: one JSON object whose keys become variables; anything else is a clear error', async () => {
    expect(parseVariables('{"text": "a", "n": 2}')).toEqual({ text: 'a', n: 2 });
    for (const [text, why] of [
      ['[1]', 'got an array'],
      ['"text"', 'got a string'],
      ['null', 'got null'],
      ['3', 'got a number'],
      ['{"text": ', 'it is not JSON'],
    ] as const) {
      const error = configError(() => parseVariables(text, '--vars file v.json'));
      expect(error.code).toBe('VARIABLES_INVALID');
      expect(error.message).toContain('--vars file v.json must be a JSON object');
      expect(error.message).toContain(why);
    }
    const { llm, requests } = scripted('x');
    const missing = configError(() => manager.render('summarize', { txt: 'typo' }));
    expect(missing.code).toBe('VARIABLES_INVALID');
    expect(missing.message).toBe(
      'prompt "summarize" uses {{text}} (line 2, column 3), which is not among the variables (given: txt)',
    );
    await expect(manager.invoke('summarize', [] as never, llm)).rejects.toMatchObject({ code: 'VARIABLES_INVALID' });
    expect(requests).toEqual([]);
  });

  test('templates: placeholders unescaped, loops and conditionals; system prompt rendered too', () => {
    const rendered = manager.render('agent-kg-extract', { text: 'a < b & "c"', focus: ['ATP', 'cells'] });
    expect(rendered.prompt).toContain('Focus on: ATP, cells.\n');
    expect(rendered.prompt).toContain('Text:\na < b & "c"');
    expect(rendered.system).toBe('You are a careful knowledge engineer. Answer only in the requested format.');
    expect(manager.render('agent-kg-extract', TEXT).prompt).not.toContain('Focus on');
  });
});

describe('invoke', () => {
  test('text prompts return the text, as before JSONL existed', async () => {
    const { llm, requests } = scripted(answer('summarize'));
    expect(await manager.invoke('summarize', TEXT, llm)).toBe(answer('summarize'));
    expect(requests[0]).toMatchObject({
      id: 'summarize',
      responseType: 'text',
      prompt: `Summarize in one sentence:\n${TEXT.text}`,
    });
    expect(requests[0]).not.toHaveProperty('schema');
  });

  test('json prompts return the validated document; the schema goes to the model too', async () => {
    const { llm, requests } = scripted(answer('section-text'));
    expect(await manager.invoke('section-text', TEXT, llm)).toEqual(JSON.parse(answer('section-text')));
    expect(requests[0]?.schema).toMatchObject({ title: 'Sections of a text, by line numbers' });
    const definitions = await manager.invoke('extract-definitions', TEXT, scripted(answer('extract-definitions')).llm);
    expect(definitions).toHaveLength(3);
  });

  test('a json answer that breaks its contract throws ContractValidationError with the outcome', async () => {
    const error = await manager
      .invoke('section-text', TEXT, scripted(answer('section-text-mismatch')).llm)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractValidationError);
    expect((error as ContractValidationError).outcome).toMatchObject({
      reason: 'CONTRACT_VALIDATION_FAILED',
      detail: 'SCHEMA_MISMATCH',
      message: 'at /sections/0/start_line: must be integer',
    });
    expect((error as Error).message).toBe(
      'prompt "section-text": SCHEMA_MISMATCH: at /sections/0/start_line: must be integer',
    );
    const notJson = await manager.invoke('section-text', TEXT, scripted('Sorry, no.').llm).catch((e: unknown) => e);
    expect((notJson as ContractValidationError).outcome).toMatchObject({ detail: 'NOT_JSON' });
  });

  test('a json answer cut off at the token limit is incomplete, never repaired', async () => {
    const cut = answer('section-text').slice(0, 60);
    const error = await manager
      .invoke('section-text', TEXT, scripted(cut, 5, { finishReason: 'length' }).llm)
      .catch((e: unknown) => e);
    expect((error as ContractValidationError).outcome).toMatchObject({ status: 'incomplete', finishReason: 'length' });
  });

  test('jsonl prompts return the valid objects; invalid lines are dropped and reported', async () => {
    const reported: [string, string, number | undefined][] = [];
    const m = createPromptManager(config, { registry, onDiagnostic: (d, id) => reported.push([id, d.reason, d.line]) });
    const values = await m.invoke('agent-kg-extract', TEXT, scripted(answer('agent-kg-extract')).llm);
    expect(values).toEqual([
      { type: 'definition', entity: 'mitochondrion', definition: "An organelle that produces most of the cell's ATP." },
      { type: 'relationship', subject: 'mitochondrion', predicate: 'produces', object: 'ATP', 'object-entity': true },
      {
        type: 'definition',
        entity: 'ATP',
        definition: 'Adenosine triphosphate, the molecule cells use to store and move energy.',
      },
    ]);
    expect(reported).toEqual([
      ['agent-kg-extract', 'prose', 1],
      ['agent-kg-extract', 'schema', 5],
      ['agent-kg-extract', 'syntax', 7],
      // The model's last line was cut mid-string, then a line break: a broken line, not a cut answer.
      ['agent-kg-extract', 'syntax', 8],
    ]);
    const ontology = (await m.invoke('extract-ontology', TEXT, scripted(answer('extract-ontology')).llm)) as unknown[];
    expect(ontology).toHaveLength(4);
  });

  test('a jsonl answer cut at the token limit on a line boundary keeps its lines and says it was cut', async () => {
    const reported: string[] = [];
    const m = createPromptManager(config, {
      registry,
      onDiagnostic: (d) => reported.push(`${d.reason}: ${d.message}`),
    });
    const text = answer('agent-kg-extract').split('\n').slice(0, 4).join('\n');
    const values = await m.invoke('agent-kg-extract', TEXT, scripted(`${text}\n`, 5, { finishReason: 'length' }).llm);
    expect(values).toHaveLength(2);
    expect(reported.at(-1)).toBe(
      'truncated: the provider cut the answer off at the token limit (finish reason "length"); the 2 complete valid lines before the cut were kept',
    );
  });

  test('a jsonl answer with no valid object is [] with a warning', async () => {
    const envelope = await manager.run('agent-kg-extract', TEXT, scripted('I found nothing.').llm);
    expect(envelope).toMatchObject({
      status: 'succeeded',
      result: { json: [] },
      warnings: ['no valid objects in the answer'],
    });
    expect(await manager.invoke('agent-kg-extract', TEXT, scripted('').llm)).toEqual([]);
  });

  test('the llm may return a string, an async iterable, a Node Readable, a ReadableStream, bytes split inside characters', async () => {
    const text = '{"document_title": "Überblick — ☃ 𝄞", "sections": [{"title": "é", "start_line": 1, "end_line": 2}]}';
    const bytes = new TextEncoder().encode(text);
    const pieces = Array.from({ length: Math.ceil(bytes.length / 3) }, (_, i) => bytes.subarray(i * 3, i * 3 + 3));
    const outputs: (() => ReturnType<Llm>)[] = [
      () => text,
      async () => text,
      () =>
        (async function* () {
          yield* pieces;
        })(),
      () => Readable.from(pieces),
      () =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (const piece of pieces) controller.enqueue(piece);
            controller.close();
          },
        }),
      () => ({ output: Readable.from(chunkText(text, 2)), model: 'm1' }),
    ];
    for (const output of outputs) {
      expect(await manager.invoke('section-text', TEXT, () => output())).toEqual(JSON.parse(text));
    }
    await expect(manager.invoke('section-text', TEXT, () => 42 as never)).rejects.toThrow(
      'the llm function must return a string',
    );
  });
});

describe('run: the envelope', () => {
  test('succeeded json: canonical text, schema_ref, model, provider, usage, finish_reason', async () => {
    const envelope = await manager.run(
      'section-text',
      TEXT,
      scripted(answer('section-text'), 4, { finishReason: 'stop', model: 'llama-3.1-8b' }).llm,
    );
    expect(envelope).toEqual({
      status: 'succeeded',
      result: {
        json: JSON.parse(answer('section-text')),
        schema_ref: 'tnh.sectioning.default_section.v1',
        text: '{"document_title":"On the Heart Sutra","sections":[{"end_line":12,"start_line":1,"title":"Introduction"},{"end_line":40,"start_line":13,"title":"Emptiness"}]}',
        model: 'llama-3.1-8b',
        provider: 'scripted',
        usage: { output_tokens: 7 },
        finish_reason: 'stop',
      },
    });
  });

  test('failed and incomplete envelopes keep the raw text and say why', async () => {
    const failed = await manager.run('section-text', TEXT, scripted(answer('section-text-mismatch')).llm);
    expect(failed).toMatchObject({
      status: 'failed',
      result: { text: answer('section-text-mismatch'), schema_ref: 'tnh.sectioning.default_section.v1' },
      error: {
        reason: 'CONTRACT_VALIDATION_FAILED',
        detail: 'SCHEMA_MISMATCH',
        errors: [{ path: '/sections/0/start_line' }],
      },
    });
    expect(failed.result).not.toHaveProperty('json');
    const cut = await manager.run('summarize', TEXT, scripted('The mito', 3, { finishReason: 'length' }).llm);
    expect(cut).toMatchObject({ status: 'incomplete', result: { text: 'The mito', finish_reason: 'length' } });
    expect(cut.result).not.toHaveProperty('json');
  });
});

describe('stream', () => {
  test('jsonl: each valid object is yielded while the answer is still arriving', async () => {
    let delivered = 0;
    const observed: number[] = [];
    const text = answer('agent-kg-extract');
    const llm: Llm = () => ({
      output: (async function* () {
        for (const chunk of chunkText(text, 7)) {
          observed.push(delivered);
          yield chunk;
        }
      })(),
    });
    const stream = manager.stream('agent-kg-extract', TEXT, llm);
    const values: unknown[] = [];
    for await (const value of stream) {
      values.push(value);
      delivered = values.length;
    }
    expect(values).toHaveLength(3);
    // The model was still streaming when the first objects were yielded.
    expect(observed.filter((n) => n > 0 && n < 3).length).toBeGreaterThan(0);
    const outcome = await stream.outcome;
    expect(outcome).toMatchObject({ status: 'succeeded', result: { json: values } });
    expect(outcome.diagnostics?.map((d) => d.reason)).toEqual(['prose', 'schema', 'syntax', 'syntax']);
  });

  test('json arrays: elements are yielded as each completes; the outcome validates the whole document', async () => {
    for (const id of ['extract-definitions', 'extract-relationships']) {
      for (const size of [1, 3, 16, 64]) {
        const stream = manager.stream(id, TEXT, scripted(answer(id), size).llm);
        const values: unknown[] = [];
        for await (const value of stream) values.push(value);
        const outcome = await stream.outcome;
        expect(outcome.status).toBe('succeeded');
        expect(values).toEqual(outcome.result.json);
      }
    }
  });

  test('a json object is yielded once, complete; text prompts yield text chunks', async () => {
    const stream = manager.stream('section-text', TEXT, scripted(answer('section-text')).llm);
    const values: unknown[] = [];
    for await (const value of stream) values.push(value);
    expect(values).toEqual([JSON.parse(answer('section-text'))]);
    const text = manager.stream('summarize', TEXT, scripted(answer('summarize'), 5).llm);
    let joined = '';
    for await (const chunk of text) joined += chunk as string;
    expect(joined).toBe(answer('summarize'));
  });

  test('the outcome alone drives the call when nobody iterates; a model error reaches both', async () => {
    const outcome = await manager.stream('agent-kg-extract', TEXT, scripted(answer('agent-kg-extract')).llm).outcome;
    expect(outcome.result.json).toHaveLength(3);
    const failing: Llm = () => ({
      output: (async function* () {
        yield '{"type": "definition"';
        throw new Error('connection reset');
      })(),
    });
    await expect(manager.stream('agent-kg-extract', TEXT, failing).outcome).rejects.toThrow('connection reset');
    const iterated = manager.stream('agent-kg-extract', TEXT, failing);
    await expect(
      (async () => {
        for await (const _ of iterated);
      })(),
    ).rejects.toThrow('connection reset');
    await expect(iterated.outcome).rejects.toThrow('connection reset');
  });
});

describe('stream: the outcome and the iteration share one answer', () => {
  test('reading the outcome first does not take values from the iteration', async () => {
    const stream = manager.stream('agent-kg-extract', TEXT, scripted(answer('agent-kg-extract'), 5).llm);
    const outcome = stream.outcome;
    const values: unknown[] = [];
    for await (const value of stream) values.push(value);
    expect(values).toHaveLength(3);
    expect((await outcome).result.json).toEqual(values);
  });

  test('leaving the iteration early closes the answer and settles the outcome', async () => {
    let closed = false;
    const llm: Llm = () => ({
      output: (async function* () {
        try {
          for (const chunk of chunkText(answer('agent-kg-extract'), 5)) {
            await Promise.resolve();
            yield chunk;
          }
        } finally {
          closed = true;
        }
      })(),
    });
    const stream = manager.stream('agent-kg-extract', TEXT, llm);
    for await (const _ of stream) break;
    await expect(stream.outcome).rejects.toThrow('the stream was closed before the answer ended');
    expect(closed).toBe(true);
  });
});

describe('chunking does not matter', () => {
  const cases = [
    'extract-definitions',
    'extract-relationships',
    'agent-kg-extract',
    'extract-ontology',
    'section-text',
    'section-text-mismatch',
  ];
  const idOf = (name: string) => (name === 'section-text-mismatch' ? 'section-text' : name);

  fcTest.prop([fc.constantFrom(...cases), fc.array(fc.nat(), { maxLength: 40 })], { numRuns })(
    'stream and run give the same values and envelope under any split of the answer',
    async (name, points) => {
      const text = answer(name);
      const whole = await manager.run(idOf(name), TEXT, () => text);
      const chunks = splitAt(
        text,
        points.map((p) => p % (text.length + 1)),
      );
      const stream = manager.stream(idOf(name), TEXT, () => ({
        output: (async function* () {
          yield* chunks;
        })(),
      }));
      const values: unknown[] = [];
      for await (const value of stream) values.push(value);
      expect(await stream.outcome).toEqual(whole);
      if (whole.status === 'succeeded') {
        expect(values).toEqual(Array.isArray(whole.result.json) ? whole.result.json : [whole.result.json]);
      }
    },
  );
});

describe('answers that must not make a call throw', () => {
  const deepTree = `${'{"children":['.repeat(10_000)}{}${']}'.repeat(10_000)}`;
  const deepList = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
  const treeSchema = {
    type: 'object',
    properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
  };
  const prompts = createPromptManager({
    prompts: {
      tree: { prompt: 'x', 'response-type': 'json', schema: treeSchema },
      list: { prompt: 'x', 'response-type': 'json', schema: { type: 'array', items: { $ref: '#' } } },
      lines: { prompt: 'x', 'response-type': 'jsonl', schema: treeSchema },
      recipe: {
        prompt: 'x',
        'response-type': 'json',
        schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      },
    },
  });

  test.each([
    ['tree', deepTree],
    ['list', deepList],
    ['tree', `Here:\n\`\`\`json\n${deepTree}\n\`\`\``],
  ])('run, stream and invoke: %s schema, a 10,000-deep answer is a NOT_JSON contract failure', async (id, text) => {
    for (const size of [text.length, 4096, 61]) {
      const { llm } = scripted(text, size);
      const envelope = await prompts.run(id, {}, llm);
      expect(envelope).toMatchObject({
        status: 'failed',
        error: { reason: 'CONTRACT_VALIDATION_FAILED', detail: 'NOT_JSON' },
      });
      expect(envelope.error?.message).toContain('maxDepth (512 levels)');
      const stream = prompts.stream(id, {}, scripted(text, size).llm);
      const values: unknown[] = [];
      for await (const value of stream) values.push(value);
      expect(values).toEqual([]);
      expect(await stream.outcome).toEqual(envelope);
      const error = await prompts.invoke(id, {}, scripted(text, size).llm).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ContractValidationError);
      expect((error as ContractValidationError).outcome).toMatchObject({ detail: 'NOT_JSON' });
    }
  });

  test('jsonl: a 10,000-deep line is dropped and reported (too-deep); the other lines are the result', async () => {
    const text = `{"name": "a"}\n${deepTree}\n{"name": "b"}\n`;
    const envelope = await prompts.run('lines', {}, scripted(text, 97).llm);
    expect(envelope).toMatchObject({ status: 'succeeded', result: { json: [{ name: 'a' }, { name: 'b' }] } });
    expect(envelope.diagnostics?.map((d) => d.reason)).toEqual(['too-deep']);
  });

  test('fenced-object-with-trailing-comma: the object, with its recovered note in the envelope and onDiagnostic', async () => {
    const text = 'Here you go:\n```json\n{"title": "x", "tags": ["a", "b"],\n}\n```\n';
    const seen: [string, string][] = [];
    const withNotes = createPromptManager(
      { prompts: { recipe: { prompt: 'x', 'response-type': 'json', schema: { type: 'object' } } } },
      { onDiagnostic: (d, id) => seen.push([id, d.reason]) },
    );
    for (const size of [1, 3, 64, text.length]) {
      seen.length = 0;
      const envelope = await withNotes.run('recipe', {}, scripted(text, size).llm);
      expect(envelope).toMatchObject({
        status: 'succeeded',
        result: { json: { title: 'x', tags: ['a', 'b'] }, text: '{"tags":["a","b"],"title":"x"}' },
      });
      expect(envelope.diagnostics?.map((d) => d.reason)).toEqual(['recovered']);
      expect(seen).toEqual([['recipe', 'recovered']]);
    }
    expect(await prompts.invoke('recipe', {}, scripted(text).llm)).toEqual({ title: 'x', tags: ['a', 'b'] });
  });
});
