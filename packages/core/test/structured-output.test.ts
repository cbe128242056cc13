/**
 * Provider structured-output fields (packages/core/src/client/structured-output.ts): the four request
 * shapes, Standard Schemas through their JSON Schema export (zod 4, valibot 1 with
 * toStandardJsonSchema, arktype 2), `$schema` removed, object roots, names, and OpenAI strict
 * mode: `'auto'` closes open objects and falls back to `strict: false`, `true` names each
 * offending pointer, `false` sends the schema as given.
 */

import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { thrownBy } from '../../../test/support/thrown.js';
import {
  checkStructuredOutputOptions,
  strictSchemaProblems,
  structuredOutput,
} from '../src/client/structured-output.js';
import { ConfigurationError, ConfigurationErrorCode } from '../src/diagnostics/configuration-error.js';
import { jsonSchemaOf } from '../src/schema/standard-schema.js';

/** The ConfigurationError `run` throws. */
const configurationError = (run: () => unknown): ConfigurationError => thrownBy(ConfigurationError, run);

const person = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { name: { type: 'string' }, age: { type: ['integer', 'null'] } },
  required: ['name', 'age'],
  additionalProperties: false,
} as const;
const { $schema: _, ...personSent } = person;

describe('the four request shapes', () => {
  test('OpenAI Chat Completions: response_format json_schema, $schema removed, strict when the schema qualifies', () => {
    expect(structuredOutput('openai-chat', person)).toEqual({
      response_format: { type: 'json_schema', json_schema: { name: 'response', schema: personSent, strict: true } },
    });
  });

  test('OpenAI Responses API: text.format, with name and description', () => {
    expect(structuredOutput('openai-responses', person, { name: 'person_v1', description: 'One person.' })).toEqual({
      text: {
        format: {
          type: 'json_schema',
          name: 'person_v1',
          description: 'One person.',
          schema: personSent,
          strict: true,
        },
      },
    });
  });

  test('Anthropic: one tool whose input_schema is the schema, forced by tool_choice', () => {
    expect(structuredOutput('anthropic', person, { name: 'record_person', description: 'Record it.' })).toEqual({
      tools: [{ name: 'record_person', description: 'Record it.', input_schema: personSent }],
      tool_choice: { type: 'tool', name: 'record_person' },
    });
  });

  test('Ollama: format is the schema, whatever its root', () => {
    expect(structuredOutput('ollama', person)).toEqual({ format: personSent });
    const list = { type: 'array', items: { type: 'string' } };
    expect(structuredOutput('ollama', list)).toEqual({ format: list });
  });

  test('the schema given is never mutated, and fields are new objects each call', () => {
    const open = { $schema: 'x', type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    const copy = structuredClone(open);
    const fields = structuredOutput('openai-chat', open);
    expect(fields.response_format.json_schema.schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    });
    expect(open).toEqual(copy);
  });
});

describe('Standard Schemas', () => {
  test('zod 4: open objects are closed (additionalProperties: false) at every level and sent strict', () => {
    const schema = z.object({ title: z.string(), author: z.object({ name: z.string() }), tags: z.array(z.string()) });
    expect(structuredOutput('openai-chat', schema, { name: 'book' })).toEqual({
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'book',
          strict: true,
          schema: {
            type: 'object',
            properties: {
              title: { type: 'string' },
              author: {
                type: 'object',
                properties: { name: { type: 'string' } },
                required: ['name'],
                additionalProperties: false,
              },
              tags: { type: 'array', items: { type: 'string' } },
            },
            required: ['title', 'author', 'tags'],
            additionalProperties: false,
          },
        },
      },
    });
    // The vendor's cached export is untouched.
    expect(jsonSchemaOf(schema)).not.toHaveProperty('additionalProperties');
    expect(jsonSchemaOf(schema)).toHaveProperty('$schema');
  });

  test('zod 4 with an optional property: strict "auto" sends the export as it is, strict: false', () => {
    const schema = z.object({ a: z.string(), b: z.number().optional() });
    expect(structuredOutput('openai-chat', schema)).toEqual({
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'response',
          strict: false,
          schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'] },
        },
      },
    });
  });

  test('valibot 1 through toStandardJsonSchema', () => {
    const schema = toStandardJsonSchema(v.strictObject({ city: v.string(), population: v.number() }));
    expect(structuredOutput('openai-responses', schema)).toEqual({
      text: {
        format: {
          type: 'json_schema',
          name: 'response',
          strict: true,
          schema: {
            type: 'object',
            properties: { city: { type: 'string' }, population: { type: 'number' } },
            required: ['city', 'population'],
            additionalProperties: false,
          },
        },
      },
    });
  });

  test('arktype 2, to Anthropic and Ollama', () => {
    const schema = type({ city: 'string', 'population?': 'number' });
    const sent = {
      type: 'object',
      properties: { city: { type: 'string' }, population: { type: 'number' } },
      required: ['city'],
    };
    expect(structuredOutput('anthropic', schema)).toEqual({
      tools: [{ name: 'response', input_schema: sent }],
      tool_choice: { type: 'tool', name: 'response' },
    });
    expect(structuredOutput('ollama', schema)).toEqual({ format: sent });
  });

  test('a valibot schema without toStandardJsonSchema: SCHEMA_INVALID saying how to get an export', () => {
    const error = configurationError(() => structuredOutput('openai-chat', v.object({ a: v.string() })));
    expect(error.code).toBe(ConfigurationErrorCode.schemaInvalid);
    expect(error.message).toContain('"valibot" schema has no JSON Schema export');
    expect(error.message).toContain('toStandardJsonSchema(schema) from @valibot/to-json-schema');
  });

  test('a zod type JSON Schema cannot express (its converter throws): SCHEMA_INVALID', () => {
    const error = configurationError(() => structuredOutput('ollama', z.object({ when: z.date() })));
    expect(error.code).toBe(ConfigurationErrorCode.schemaInvalid);
    expect(error.message).toContain('"zod" schema has no JSON Schema export');
  });
});

describe('roots', () => {
  test.each(['openai-chat', 'openai-responses', 'anthropic'] as const)(
    '%s refuses an array root, unwrapped, saying how to wrap it',
    (provider) => {
      const error = configurationError(() => structuredOutput(provider, z.array(z.string())));
      expect(error.code).toBe(ConfigurationErrorCode.schemaInvalid);
      expect(error.message).toContain('the schema\'s root has type "array"');
      expect(error.message).toContain('needs a root of type "object"');
      expect(error.message).toContain('"properties": { "items": <schema> }');
    },
  );

  test('a discriminated union at the root has no "type" and is refused for OpenAI', () => {
    const union = z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('a'), x: z.string() }),
      z.object({ kind: z.literal('b'), y: z.number() }),
    ]);
    const error = configurationError(() => structuredOutput('openai-chat', union, { strict: false }));
    expect(error.message).toMatch(/^the schema's root has no "type", but OpenAI structured output needs/);
  });

  test('a boolean schema is refused for every provider', () => {
    expect(configurationError(() => structuredOutput('ollama', true)).code).toBe(ConfigurationErrorCode.schemaInvalid);
  });
});

describe('OpenAI strict mode', () => {
  const loose = {
    type: 'object',
    properties: {
      id: { type: 'string', default: 'x' },
      note: { type: 'string' },
      counts: { type: 'object', additionalProperties: { type: 'number' } },
      shape: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    },
    required: ['id', 'counts', 'shape'],
  } as const;

  test('strictSchemaProblems lists each pointer and rule, after closing open objects', () => {
    expect(strictSchemaProblems(loose)).toEqual([
      {
        pointer: '',
        message: expect.stringMatching(/^property "note" is not in "required": strict mode has no optional properties/),
      },
      { pointer: '/properties/id', message: '"default" is not supported in strict mode' },
      {
        pointer: '/properties/counts',
        message: 'additionalProperties must be false (strict mode has no free-form objects, records or extra keys)',
      },
      { pointer: '/properties/shape', message: '"oneOf" is not supported in strict mode' },
    ]);
    expect(strictSchemaProblems(person)).toEqual([]);
  });

  test('strict: true with a schema outside the subset: SCHEMA_INVALID naming every pointer', () => {
    const error = configurationError(() => structuredOutput('openai-chat', loose, { strict: true }));
    expect(error.code).toBe(ConfigurationErrorCode.schemaInvalid);
    expect(error.message).toMatch(
      /^the schema cannot be sent with strict: true, OpenAI strict mode does not accept it: /,
    );
    expect(error.message).toContain('at /: property "note" is not in "required"');
    expect(error.message).toContain('at /properties/id: "default" is not supported');
    expect(error.message).toContain('at /properties/counts: additionalProperties must be false');
    expect(error.message).toContain('at /properties/shape: "oneOf" is not supported');
    expect(error.message).toContain("strict: 'auto' sends it with strict: false instead");
  });

  test('strict: true with a qualifying zod schema sends the closed schema', () => {
    const fields = structuredOutput('openai-chat', z.object({ a: z.string().nullable() }), { strict: true });
    expect(fields.response_format.json_schema).toMatchObject({ strict: true, schema: { additionalProperties: false } });
  });

  test('strict: false sends the schema as given (not closed)', () => {
    const open = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    expect(structuredOutput('openai-chat', open, { strict: false }).response_format.json_schema).toEqual({
      name: 'response',
      schema: open,
      strict: false,
    });
  });

  test('a root anyOf keeps strict off; so does patternProperties, which is never closed', () => {
    const rootUnion = {
      type: 'object',
      anyOf: [{ properties: { a: { type: 'string' } }, required: ['a'] }],
    };
    expect(strictSchemaProblems(rootUnion)[0]).toEqual({
      pointer: '',
      message: '"anyOf" is not allowed at the root in strict mode',
    });
    expect(structuredOutput('openai-chat', rootUnion).response_format.json_schema.strict).toBe(false);
    const patterned = { type: 'object', properties: {}, patternProperties: { '^x': { type: 'string' } } };
    expect(strictSchemaProblems(patterned).map((p) => p.message)).toEqual([
      '"patternProperties" is not supported in strict mode',
      'additionalProperties must be false (strict mode has no free-form objects, records or extra keys)',
    ]);
  });

  test('$defs are closed and checked too, with their pointers; $ref recursion is sent as it is', () => {
    const tree = {
      type: 'object',
      properties: { root: { $ref: '#/$defs/node' } },
      required: ['root'],
      $defs: {
        node: {
          type: 'object',
          properties: { label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
          required: ['label', 'children'],
        },
        'a/b': { type: 'object', properties: { x: { type: 'string' } } },
      },
    };
    expect(strictSchemaProblems(tree)).toEqual([
      { pointer: '/$defs/a~1b', message: expect.stringContaining('property "x" is not in "required"') },
    ]);
    delete (tree.$defs as Record<string, unknown>)['a/b'];
    const sent = structuredOutput('openai-chat', tree, { strict: true }).response_format.json_schema.schema;
    expect(sent).toMatchObject({
      additionalProperties: false,
      $defs: { node: { additionalProperties: false, properties: { children: { items: { $ref: '#/$defs/node' } } } } },
    });
  });

  test('a property named "__proto__" stays a property of the closed copy', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}',
    ) as Record<string, unknown>;
    const sent = structuredOutput('openai-chat', schema).response_format.json_schema;
    expect(sent.strict).toBe(true);
    expect(Object.keys(sent.schema.properties as object)).toEqual(['__proto__']);
    expect(JSON.stringify(sent.schema)).toBe(
      '{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"],"additionalProperties":false}',
    );
  });

  test('a schema object that contains itself is SCHEMA_INVALID, not a stack overflow', () => {
    const node: Record<string, unknown> = { type: 'object', properties: {}, required: [] };
    (node.properties as Record<string, unknown>).self = node;
    const error = configurationError(() => structuredOutput('openai-chat', node));
    expect(error.code).toBe(ConfigurationErrorCode.schemaInvalid);
    expect(error.message).toContain('contains itself');
  });

  test('a schema nested past the stack is SCHEMA_INVALID, not a RangeError', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 100_000; i++) deep = { type: 'object', properties: { a: deep }, required: ['a'] };
    const error = configurationError(() => structuredOutput('openai-chat', deep));
    expect(error.code).toBe(ConfigurationErrorCode.schemaInvalid);
    expect(error.message).toBe('the schema is nested too deeply to be sent as structured output');
  });
});

describe('options', () => {
  test.each(['', 'has space', 'x'.repeat(65), 'naïve', 'a.b'])('name %j is OPTION_INVALID', (name) => {
    const error = configurationError(() => structuredOutput('openai-chat', person, { name }));
    expect(error.code).toBe(ConfigurationErrorCode.optionInvalid);
    expect(error.message).toContain('^[a-zA-Z0-9_-]{1,64}$');
  });

  test('a 64-character name of letters, digits, "_" and "-" is accepted', () => {
    const name = `${'a'.repeat(60)}_-9Z`;
    expect(structuredOutput('anthropic', person, { name }).tool_choice).toEqual({ type: 'tool', name });
  });

  test('a bad strict, description or provider is OPTION_INVALID', () => {
    for (const run of [
      () => checkStructuredOutputOptions({ strict: 'yes' as never }),
      () => checkStructuredOutputOptions({ description: 1 as never }),
      () => structuredOutput('gemini' as never, person),
    ]) {
      expect(configurationError(run).code).toBe(ConfigurationErrorCode.optionInvalid);
    }
  });
});
