/**
 * Every name a configuration, a caller or a model chooses is looked up among own members only:
 * prompt ids (`invoke('constructor', …)` is "no prompt with id", never Object.prototype's
 * constructor), schema references (`constructor`, `__proto__` name files like any other
 * reference), correction placeholders, and keys of a schema quoted back to the model.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AttemptFailure,
  ContractConfigurationError,
  checkCatalog,
  createPromptManager,
  createSchemaRegistry,
  type Llm,
  renderCorrection,
} from '@llmjson/contracts';
import { ConfigurationError } from '@llmjson/core';
import { describe, expect, test } from 'vitest';

const PROTOTYPE_NAMES = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])];
const root = mkdtempSync(join(tmpdir(), 'llmjson-own-names-'));
const registry = createSchemaRegistry({ roots: [root] });

const silent: Llm = () => {
  throw new Error('the model must not be called');
};

describe('prompt ids', () => {
  const manager = createPromptManager({ prompts: { only: { prompt: 'x' } } }, { registry });

  test.each(PROTOTYPE_NAMES)(
    'invoke, run, stream and render of %s: "no prompt with id", before the model',
    async (id) => {
      const expected = { code: 'PROMPT_INVALID', promptId: id, message: expect.stringContaining(`no prompt with id`) };
      await expect(manager.invoke(id, {}, silent)).rejects.toMatchObject(expected);
      await expect(manager.run(id, {}, silent)).rejects.toMatchObject(expected);
      expect(() => manager.stream(id, {}, silent)).toThrow(ContractConfigurationError);
      expect(() => manager.render(id, {})).toThrow(/no prompt with id/);
    },
  );

  test('prompts named after Object.prototype members (JSON `__proto__` too) are prompts like any other', async () => {
    const config = JSON.parse(
      `{"prompts": {${PROTOTYPE_NAMES.map((name) => `${JSON.stringify(name)}: {"prompt": ${JSON.stringify(`${name}: {{text}}`)}}`).join(', ')}}}`,
    ) as unknown;
    const named = createPromptManager(config, { registry });
    expect(named.ids).toEqual(PROTOTYPE_NAMES);
    expect(checkCatalog(config, registry).prompts.map((p) => p.promptId)).toEqual(PROTOTYPE_NAMES);
    for (const name of PROTOTYPE_NAMES) {
      const prompts: string[] = [];
      const answer = await named.invoke(name, { text: 't' }, (request) => {
        prompts.push(request.prompt);
        return 'ok';
      });
      expect(answer).toBe('ok');
      expect(prompts).toEqual([`${name}: t`]);
    }
  });
});

describe('schema references', () => {
  test.each(PROTOTYPE_NAMES)('schema_ref %s is looked up as a file, and not found', (ref) => {
    expect(() => registry.resolve(ref)).toThrow(ContractConfigurationError);
    const report = checkCatalog(
      { prompts: { p: { prompt: 'x', 'response-type': 'json', schema_ref: ref } } },
      registry,
    );
    expect(report.problems).toHaveLength(1);
    expect(report.problems[0]?.code).toBe(
      ref === '__proto__' || /^\w+$/.test(ref) ? 'SCHEMA_NOT_FOUND' : 'SCHEMA_REF_INVALID',
    );
  });

  test('a reference named constructor or __proto__ resolves to its own file, and is cached under its name', () => {
    const own = mkdtempSync(join(tmpdir(), 'llmjson-own-refs-'));
    mkdirSync(join(own, 'a'));
    writeFileSync(join(own, 'constructor.schema.json'), '{"type": "string"}');
    writeFileSync(join(own, '__proto__.schema.json'), '{"type": "integer"}');
    writeFileSync(join(own, 'a', 'toString.schema.json'), '{"type": "boolean"}');
    const refs = createSchemaRegistry({ roots: [own] });
    for (const [ref, type] of [
      ['constructor', 'string'],
      ['__proto__', 'integer'],
      ['a.toString', 'boolean'],
      ['constructor', 'string'],
    ] as const) {
      expect(refs.resolve(ref).schema).toEqual({ type });
      expect(refs.compile(ref).validate(type === 'string' ? 's' : type === 'integer' ? 1 : true).valid).toBe(true);
    }
  });
});

describe('corrections', () => {
  const failure: AttemptFailure = {
    attempt: 1,
    promptId: 'p',
    responseType: 'json',
    detail: 'SCHEMA_MISMATCH',
    message: 'must be string',
    path: '/a',
    rule: 'type',
    excerpt: '1',
    errors: [],
  };

  test.each(['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'])(
    'a correction template with {{%s}} is refused, never filled with what the failure inherits',
    (name) => {
      expect(() => renderCorrection(`Fix {{${name}}}`, failure)).toThrow(ConfigurationError);
      expect(() => renderCorrection(`Fix {{${name}}}`, failure)).toThrow(`{{${name}}}`);
      expect(() => createPromptManager({ prompts: {} }, { correction: `{{${name}}}` })).toThrow(`{{${name}}}`);
    },
  );

  test('the placeholders still fill in', () => {
    expect(renderCorrection('{{path}} {{rule}} {{line}}|{{format}}', failure)).toBe('/a type |one JSON document');
  });

  test('a schema key "__proto__" is quoted back to the model as a key', async () => {
    const schema = JSON.parse(
      '{"type": "object", "properties": {"doc": {"type": "object", "properties": {"__proto__": {"type": "string"}}}}, "required": ["doc"]}',
    ) as Record<string, unknown>;
    const failures: AttemptFailure[] = [];
    const manager = createPromptManager(
      { prompts: { p: { prompt: 'x', 'response-type': 'json', schema } } },
      { retries: 1, onRetry: (f) => failures.push(f) },
    );
    const answers = ['{"doc": 5}', '{"doc": {}}'];
    await manager.invoke('p', {}, () => answers.shift() as string);
    expect(failures[0]?.expected).toBe('{"type":"object","properties":{"__proto__":{"type":"string"}}}');
  });
});
