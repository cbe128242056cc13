/**
 * Contracts with a Standard Schema (zod 4, valibot 1, arktype 2): `parseJsonResponse`,
 * `parseJsonlResponse` and prompts given in code give the same values and outcome kinds as
 * with the equivalent JSON Schema (fixtures/schemas/definition-relationship.schema.json);
 * the envelope names the vendor.
 */
import { readFileSync } from 'node:fs';
import {
  ContractConfigurationError,
  ContractValidationError,
  checkCatalog,
  createPromptManager,
  createSchemaRegistry,
  type Envelope,
  type Llm,
  type LlmRequest,
  parseJsonlResponse,
  parseJsonResponse,
} from '@llmjson/contracts';
import { ConfigurationError, type JsonSchema, type SchemaInput, type StandardSchemaV1 } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { chunkText } from '../../../test/support/chunking.js';
import {
  definitionRelationshipJsonSchema,
  definitionRelationshipVendors,
  definitionRelationshipZod,
} from '../../../test/support/standard-schemas.js';

const ANSWER = readFileSync(new URL('../../../fixtures/answers/definition-relationship.txt', import.meta.url), 'utf8');
const DEFINITION = { type: 'definition', entity: 'ATP', definition: 'Adenosine triphosphate.' };
const RELATIONSHIP = { type: 'relationship', subject: 'mitochondrion', predicate: 'produces', object: 'ATP' };

/**
 * The outcome without its wording: status, detail, value, where it was found, error paths, and
 * the branch unless `branches` is false (a schema-limited vendor names none).
 */
function shape(outcome: ReturnType<typeof parseJsonResponse>, branches = true) {
  if (outcome.status === 'succeeded') {
    const branch = branches ? outcome.branch : undefined;
    return { status: outcome.status, json: outcome.json, branch, source: outcome.source };
  }
  if (outcome.status === 'incomplete') return { status: outcome.status };
  return { status: outcome.status, detail: outcome.detail, paths: outcome.errors.map((e) => e.path) };
}

const TEXTS = [
  JSON.stringify(DEFINITION),
  `\`\`\`json\n${JSON.stringify(RELATIONSHIP, null, 2)}\n\`\`\``,
  `Sure: ${JSON.stringify(DEFINITION)} Hope this helps.`,
  // Schema-directed search: the first candidate breaks the schema, a later one matches.
  `For example \`{"type": "process"}\`, but the answer is:\n${JSON.stringify(RELATIONSHIP)}`,
  JSON.stringify({ type: 'definition', entity: '', definition: 'x' }),
  JSON.stringify({ type: 'relationship', subject: 's', predicate: 'p', object: 2 }),
  JSON.stringify({ type: 'definition', entity: 'e', definition: 'd', extra: 1 }),
  '{"type": "process", "entity": "x"}',
  '[1, 2]',
  'no JSON here at all',
  '',
  '{"type": "definition", "entity": "cut off',
];

describe('parseJsonResponse with zod', () => {
  test('success: the document and its branch, fenced or in prose', () => {
    expect(parseJsonResponse(JSON.stringify(DEFINITION), { schema: definitionRelationshipZod })).toEqual({
      status: 'succeeded',
      json: DEFINITION,
      branch: 'definition',
      source: 'document',
    });
    expect(
      parseJsonResponse(`Here it is:\n\`\`\`json\n${JSON.stringify(RELATIONSHIP)}\n\`\`\``, {
        schema: definitionRelationshipZod,
      }),
    ).toMatchObject({ status: 'succeeded', json: RELATIONSHIP, branch: 'relationship', source: 'fence' });
  });

  test('mismatch: SCHEMA_MISMATCH with `at /path: message` and the errors as JSON Pointers', () => {
    const outcome = parseJsonResponse(JSON.stringify({ type: 'definition', entity: '', definition: 'x' }), {
      schema: definitionRelationshipZod,
    });
    expect(outcome).toMatchObject({
      status: 'failed',
      reason: 'CONTRACT_VALIDATION_FAILED',
      detail: 'SCHEMA_MISMATCH',
      errors: [{ path: '/entity', keyword: 'too_small' }],
    });
    expect(outcome.status === 'failed' && outcome.message).toMatch(/^branch "definition": at \/entity: \S/);
    const strict = parseJsonResponse('{"type": "relationship", "subject": "s"}', {
      schema: definitionRelationshipZod,
      tolerate: 'none',
    });
    expect(strict).toMatchObject({ status: 'failed', detail: 'SCHEMA_MISMATCH' });
    expect(strict.status === 'failed' && strict.errors.map((e) => e.path)).toEqual(['/predicate', '/object']);
  });

  test('not JSON: NOT_JSON, as with a JSON Schema; a cut-off answer is incomplete', () => {
    for (const tolerate of ['fence-and-prose', 'none'] as const) {
      expect(parseJsonResponse('I cannot answer that.', { schema: definitionRelationshipZod, tolerate })).toMatchObject(
        { status: 'failed', detail: 'NOT_JSON' },
      );
    }
    expect(
      parseJsonResponse('{"type": "definition"', { schema: definitionRelationshipZod, finishReason: 'length' }),
    ).toMatchObject({ status: 'incomplete', reason: 'INCOMPLETE' });
  });

  test('an async refinement is a configuration error, not a mismatch', () => {
    const schema = z.object({ a: z.number() }).refine(async () => true);
    expect(() => parseJsonResponse('{"a": 1}', { schema })).toThrow(ConfigurationError);
    expect(() => parseJsonResponse('{"a": 1}', { schema })).toThrow(/async validation is not supported/);
  });
});

describe.each(definitionRelationshipVendors)(
  '$name: the same outcomes as the JSON Schema',
  ({ schema, dispatches }) => {
    test('parseJsonResponse, both tolerances', () => {
      for (const text of TEXTS) {
        for (const tolerate of ['fence-and-prose', 'none'] as const) {
          const expected = shape(
            parseJsonResponse(text, { schema: definitionRelationshipJsonSchema, tolerate }),
            dispatches,
          );
          const actual = shape(parseJsonResponse(text, { schema, tolerate }));
          // The paths are the vendor's (ajv and the vendors word and split some issues differently).
          if (actual.status === 'failed' && expected.status === 'failed') {
            expect({ ...actual, paths: [] }, text).toEqual({ ...expected, paths: [] });
            expect(actual.paths.length > 0, text).toBe(expected.paths.length > 0);
          } else {
            expect(actual, text).toEqual(expected);
          }
        }
      }
    });

    test('parseJsonlResponse: the same values and dropped lines', () => {
      const expected = parseJsonlResponse(ANSWER, { schema: definitionRelationshipJsonSchema });
      const actual = parseJsonlResponse(ANSWER, { schema });
      expect(actual.json).toEqual(expected.json);
      expect(actual.diagnostics.map((d) => [d.reason, d.line])).toEqual(
        expected.diagnostics.map((d) => [d.reason, d.line]),
      );
      expect(actual.status).toBe('succeeded');
    });
  },
);

/** A scripted model: streams the answer in chunks of `size` characters and records the request. */
function scripted(text: string, size = 5, finishReason?: string) {
  const requests: LlmRequest[] = [];
  const llm: Llm = (request) => {
    requests.push(request);
    async function* output() {
      for (const chunk of chunkText(text, size)) {
        await Promise.resolve();
        yield chunk;
      }
    }
    return { output: output(), provider: 'scripted', ...(finishReason === undefined ? {} : { finishReason }) };
  };
  return { llm, requests };
}

/** The configuration in code, with the item schema `item` (and the array of it for a JSON list). */
function configWith(item: SchemaInput, list: SchemaInput) {
  return {
    system: 'You are a careful knowledge engineer.',
    prompts: {
      'kg-lines': { prompt: 'One object per line:\n{{text}}', 'response-type': 'jsonl', schema: item },
      'kg-one': { prompt: 'One object:\n{{text}}', 'response-type': 'json', schema: item },
      'kg-list': { prompt: 'A JSON array:\n{{text}}', 'response-type': 'json', schema: list },
      summarize: { prompt: 'Summarize: {{text}}' },
    },
  } as const;
}

const registry = createSchemaRegistry({ roots: [] });
const jsonSchemaManager = createPromptManager(
  configWith(definitionRelationshipJsonSchema, { type: 'array', items: definitionRelationshipJsonSchema }),
  { registry },
);
const zodManager = createPromptManager(configWith(definitionRelationshipZod, z.array(definitionRelationshipZod)), {
  registry,
});
const VARS = { text: 'Mitochondria make ATP.' };
const LIST = [DEFINITION, RELATIONSHIP];

/**
 * An envelope without its wording and without what only the Standard Schema prompt has
 * (`result.schema`): validators' messages, keywords and schema paths differ by vendor, and so
 * do a document's error paths where ajv has no branch to dispatch to (an array of a `oneOf`:
 * ajv reports every branch, zod the one the discriminator names), so only their presence is compared.
 */
function comparable(envelope: Envelope) {
  const { schema: _schema, ...result } = envelope.result;
  const paths = (errors: readonly { path: string }[] | undefined) => errors?.map((e) => e.path);
  return {
    status: envelope.status,
    result,
    error:
      envelope.error === undefined
        ? undefined
        : { ...envelope.error, message: '', errors: (envelope.error.errors?.length ?? 0) > 0 },
    diagnostics: envelope.diagnostics?.map(({ message: _m, errors, ...d }) => ({ ...d, errors: paths(errors) })),
    warnings: envelope.warnings,
  };
}

/** The envelope's error without its wording. */
function errorShape(envelope: Envelope) {
  return envelope.error === undefined
    ? undefined
    : {
        reason: envelope.error.reason,
        detail: envelope.error.detail,
        paths: envelope.error.errors?.map((e) => e.path),
      };
}

describe('a prompt with a zod schema', () => {
  test('the catalog check accepts it and names the vendor; what is not a schema is still refused', async () => {
    const report = checkCatalog(configWith(definitionRelationshipZod, z.array(definitionRelationshipZod)), registry);
    expect(report.problems).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.prompts.map((p) => [p.promptId, p.schema ?? null, p.vendor ?? null])).toEqual([
      ['kg-lines', 'inline', 'zod'],
      ['kg-one', 'inline', 'zod'],
      ['kg-list', 'inline', 'zod'],
      ['summarize', null, null],
    ]);
    expect(zodManager.check()).toEqual(report);
    const broken = checkCatalog(
      { prompts: { f: { prompt: 'x', 'response-type': 'json', schema: () => true }, n: { prompt: 'x', schema: 3 } } },
      registry,
    );
    expect(broken.problems.map((p) => [p.promptId, p.code])).toEqual([
      ['f', 'PROMPT_INVALID'],
      ['n', 'PROMPT_INVALID'],
    ]);
    expect(broken.problems[0]?.message).toMatch(/Standard Schema/);
    // A discriminator the vendor's export cannot support: refused by the check and before the model is called.
    const config = {
      prompts: {
        d: { prompt: 'x', 'response-type': 'json', schema: definitionRelationshipZod, discriminator: 'kind' },
      },
    };
    expect(checkCatalog(config, registry).problems.map((p) => [p.promptId, p.code])).toEqual([['d', 'SCHEMA_INVALID']]);
    const { llm, requests } = scripted('{}');
    await expect(createPromptManager(config, { registry }).run('d', {}, llm)).rejects.toBeInstanceOf(
      ContractConfigurationError,
    );
    expect(requests).toEqual([]);
  });

  test('invoke: the same values as the JSON Schema prompt; a broken answer throws the same outcome kind', async () => {
    const jsonl = ANSWER;
    expect(await zodManager.invoke('kg-lines', VARS, scripted(jsonl).llm)).toEqual(
      await jsonSchemaManager.invoke('kg-lines', VARS, scripted(jsonl).llm),
    );
    expect(
      await zodManager.invoke('kg-one', VARS, scripted(`\`\`\`json\n${JSON.stringify(DEFINITION)}\n\`\`\``).llm),
    ).toEqual(DEFINITION);
    expect(await zodManager.invoke('kg-list', VARS, scripted(JSON.stringify(LIST, null, 2)).llm)).toEqual(LIST);
    const bad = JSON.stringify({ type: 'definition', entity: 'e' });
    const failures = await Promise.all(
      [zodManager, jsonSchemaManager].map((m) =>
        m.invoke('kg-one', VARS, scripted(bad).llm).then(
          () => undefined,
          (error: unknown) => error,
        ),
      ),
    );
    for (const error of failures) expect(error).toBeInstanceOf(ContractValidationError);
    const [zodError, jsonError] = failures as ContractValidationError[];
    expect(zodError?.outcome).toMatchObject({ status: 'failed', detail: 'SCHEMA_MISMATCH' });
    expect(zodError?.outcome.status === 'failed' && zodError.outcome.errors.map((e) => e.path)).toEqual([
      '/definition',
    ]);
    expect(zodError?.outcome.status).toBe(jsonError?.outcome.status);
  });

  test('run: the same envelopes as the JSON Schema prompt, plus the schema section naming the vendor', async () => {
    const cases: [string, string, string | undefined][] = [
      ['kg-lines', ANSWER, undefined],
      ['kg-lines', ANSWER.split('\n').slice(0, 5).join('\n'), 'length'],
      ['kg-lines', 'nothing here', undefined],
      ['kg-one', JSON.stringify(RELATIONSHIP), undefined],
      ['kg-one', '{"type": "process"}', undefined],
      ['kg-one', 'not JSON', undefined],
      ['kg-one', '{"type": "definition", "entity": "e", "defini', 'max_tokens'],
      ['kg-list', JSON.stringify(LIST), undefined],
      ['kg-list', JSON.stringify([DEFINITION, { type: 'definition' }]), undefined],
      ['summarize', 'A summary.', undefined],
    ];
    for (const [id, text, finishReason] of cases) {
      const expected = await jsonSchemaManager.run(id, VARS, scripted(text, 4, finishReason).llm);
      const actual = await zodManager.run(id, VARS, scripted(text, 4, finishReason).llm);
      const label = `${id}: ${text.slice(0, 40)}`;
      expect(actual.status, label).toBe(expected.status);
      expect(actual.result.json, label).toEqual(expected.result.json);
      expect(errorShape(actual) === undefined, label).toBe(errorShape(expected) === undefined);
      expect(errorShape(actual)?.detail, label).toBe(errorShape(expected)?.detail);
      expect(
        actual.diagnostics?.map((d) => [d.reason, d.line]),
        label,
      ).toEqual(expected.diagnostics?.map((d) => [d.reason, d.line]));
      expect(comparable(actual), label).toEqual(comparable(expected));
      if (id === 'summarize') {
        expect(actual.result.schema).toBeUndefined();
      } else {
        expect(actual.result.schema?.vendor, label).toBe('zod');
        expect(actual.result.schema?.json_schema, label).toMatchObject({
          $schema: 'https://json-schema.org/draft/2020-12/schema',
        });
      }
      expect(expected.result.schema).toBeUndefined();
    }
  });

  test('the model is given the vendor’s JSON Schema export; the envelope carries the same one', async () => {
    const { llm, requests } = scripted(JSON.stringify(DEFINITION));
    const envelope = await zodManager.run('kg-one', VARS, llm);
    const exported = requests[0]?.schema as Exclude<JsonSchema, boolean>;
    expect(exported.oneOf).toHaveLength(2);
    expect(envelope.result.schema).toEqual({ vendor: 'zod', json_schema: exported });
  });

  test('stream: the same values, as they arrive, and the same outcome', async () => {
    for (const [id, text] of [
      ['kg-lines', ANSWER],
      ['kg-list', JSON.stringify(LIST, null, 2)],
      ['kg-one', JSON.stringify(DEFINITION)],
    ] as const) {
      const collect = async (manager: typeof zodManager) => {
        const stream = manager.stream(id, VARS, scripted(text, 3).llm);
        const values: unknown[] = [];
        for await (const value of stream) values.push(value);
        return { values, outcome: await stream.outcome };
      };
      const zod = await collect(zodManager);
      const json = await collect(jsonSchemaManager);
      expect(zod.values, id).toEqual(json.values);
      expect(zod.values.length, id).toBeGreaterThan(0);
      expect(comparable(zod.outcome), id).toEqual(comparable(json.outcome));
      expect(zod.outcome.result.schema?.vendor).toBe('zod');
    }
  });
});

describe('a Standard Schema that validates asynchronously', () => {
  test('json and jsonl prompts: the call rejects with core’s ConfigurationError, not a failed contract', async () => {
    const schema = z.object({ a: z.number() }).refine(async () => true);
    const manager = createPromptManager(
      {
        prompts: {
          one: { prompt: 'x', 'response-type': 'json', schema },
          lines: { prompt: 'x', 'response-type': 'jsonl', schema },
        },
      },
      { registry },
    );
    for (const id of ['one', 'lines']) {
      await expect(manager.run(id, {}, scripted('{"a": 1}\n').llm), id).rejects.toThrow(ConfigurationError);
    }
  });
});

describe.each(definitionRelationshipVendors.filter((v) => v.name !== 'zod 4'))(
  'a prompt with a $name schema',
  ({ schema, dispatches }) => {
    test('run: the same values; the envelope names the vendor, with the JSON Schema only where exported', async () => {
      const manager = createPromptManager(
        configWith(schema, { type: 'array', items: definitionRelationshipJsonSchema }),
        { registry },
      );
      const { llm, requests } = scripted(ANSWER);
      const envelope = await manager.run('kg-lines', VARS, llm);
      const expected = await jsonSchemaManager.run('kg-lines', VARS, scripted(ANSWER).llm);
      expect(envelope.result.json).toEqual(expected.result.json);
      const vendor = (schema as StandardSchemaV1)['~standard'].vendor;
      expect(envelope.result.schema?.vendor).toBe(vendor);
      expect(envelope.result.schema?.json_schema !== undefined).toBe(dispatches);
      expect(requests[0]?.schema !== undefined).toBe(dispatches);
      expect(manager.check().ok).toBe(true);
    });
  },
);

describe('parseJsonResponse with a Standard Schema whose validate misbehaves', () => {
  const throwing = z.object({ id: z.string() }).refine(() => {
    throw new Error('refine exploded');
  });
  const malformed: StandardSchemaV1 = {
    '~standard': { version: 1, vendor: 'acme', validate: () => ({ issues: [] }) },
  };

  test.each([
    ['a zod refine that throws', throwing, /^the zod schema's validate threw Error: refine exploded; /],
    ['{ issues: [] }', malformed, /^the acme schema's validate returned an empty list of issues/],
  ] as const)('%s: SCHEMA_MISMATCH naming the vendor, not SCHEMA_ASYNC, whole and salvaged', (_, schema, says) => {
    for (const tolerate of ['none', undefined] as const) {
      for (const text of ['{"id": "a"}', 'Here: {"id": "a"} done']) {
        if (tolerate === 'none' && text.startsWith('Here')) continue;
        const outcome = parseJsonResponse(text, { schema, ...(tolerate === undefined ? {} : { tolerate }) });
        expect(outcome.status).toBe('failed');
        if (outcome.status !== 'failed') continue;
        expect(outcome.detail).toBe('SCHEMA_MISMATCH');
        expect(outcome.message).toMatch(says);
        expect(outcome.errors.map((e) => e.keyword)).toEqual(['standard-validate']);
      }
    }
  });
});
