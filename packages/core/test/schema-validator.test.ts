import { ConfigurationError } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { formatSchemaErrors } from '@llmjson/core/internal';
import { describe, expect, test } from 'vitest';

const definition = {
  type: 'object',
  properties: { type: { const: 'definition' }, entity: { type: 'string' }, definition: { type: 'string' } },
  required: ['type', 'entity', 'definition'],
};
const relationship = {
  type: 'object',
  properties: {
    type: { const: 'relationship' },
    subject: { type: 'string' },
    predicate: { type: 'string' },
    object: { type: 'string' },
  },
  required: ['type', 'subject', 'predicate', 'object'],
};

describe('compileSchema', () => {
  test('no discriminator: validates the whole schema and reports JSON-pointer paths', () => {
    const compiled = compileSchema({
      type: 'object',
      properties: { sections: { type: 'array', items: { properties: { start_line: { type: 'integer' } } } } },
    });
    expect(compiled.discriminator).toBeUndefined();
    expect(compiled.validate({ sections: [{ start_line: 3 }] })).toEqual({ valid: true });
    const result = compiled.validate({ sections: [{ start_line: 'x' }] });
    expect(result.valid).toBe(false);
    if (!result.valid) {
      expect(result.message).toBe('at /sections/0/start_line: must be integer');
      expect(result.errors[0]?.path).toBe('/sections/0/start_line');
    }
  });

  test('detects the discriminator of a oneOf and validates only the named branch', () => {
    const compiled = compileSchema({ oneOf: [definition, relationship] });
    expect(compiled.discriminator).toBe('type');
    expect(compiled.branches).toEqual(['definition', 'relationship']);
    expect(compiled.validate({ type: 'definition', entity: 'a', definition: 'b' })).toEqual({
      valid: true,
      branch: 'definition',
    });
    const bad = compiled.validate({ type: 'relationship', subject: 'a', predicate: 'b', object: 3 });
    expect(bad).toMatchObject({ valid: false, branch: 'relationship' });
    if (!bad.valid) {
      expect(bad.message).toBe('branch "relationship": at /object: must be string');
      expect(bad.errors.map((e) => e.path)).toEqual(['/object']);
    }
  });

  test('an unknown or missing discriminator lists the allowed values', () => {
    const compiled = compileSchema({ oneOf: [definition, relationship] });
    const unknown = compiled.validate({ type: 'attribute' });
    expect(unknown.valid).toBe(false);
    if (!unknown.valid) {
      expect(unknown.message).toBe(
        'unknown discriminator "type": "attribute"; expected one of "definition", "relationship"',
      );
      expect(unknown.errors[0]).toMatchObject({ path: '/type', keyword: 'discriminator' });
    }
    const missing = compiled.validate({ entity: 'x' });
    if (!missing.valid)
      expect(missing.message).toBe('missing discriminator "type"; expected one of "definition", "relationship"');
    expect(missing.valid).toBe(false);
    expect(compiled.validate([1]).valid).toBe(false);
    expect(compiled.validate(null).valid).toBe(false);
  });

  test('follows $ref branches into $defs (2020-12) and checks formats', () => {
    const compiled = compileSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: {
        entity: {
          type: 'object',
          properties: { kind: { const: 'entity' }, url: { type: 'string', format: 'uri' } },
          required: ['kind', 'url'],
        },
        attribute: {
          type: 'object',
          properties: { kind: { enum: ['attribute'] }, date: { type: 'string', format: 'date' } },
          required: ['kind', 'date'],
        },
      },
      anyOf: [{ $ref: '#/$defs/entity' }, { $ref: '#/$defs/attribute' }],
    });
    expect(compiled.discriminator).toBe('kind');
    expect(compiled.validate({ kind: 'entity', url: 'https://example.org/x' }).valid).toBe(true);
    expect(compiled.validate({ kind: 'entity', url: 'not a uri' }).valid).toBe(false);
    expect(compiled.validate({ kind: 'attribute', date: '2026-11-22' }).valid).toBe(true);
    expect(compiled.validate({ kind: 'attribute', date: '22/11/2026' }).valid).toBe(false);
  });

  test('draft 2020-12 keywords apply when $schema says so', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'integer' }],
      items: false,
    };
    expect(compileSchema(schema).validate([1]).valid).toBe(true);
    expect(compileSchema(schema).validate([1, 2]).valid).toBe(false);
  });

  test('root keywords beside the oneOf still apply under dispatch', () => {
    const compiled = compileSchema({ oneOf: [definition, relationship], required: ['id'] });
    expect(compiled.discriminator).toBe('type');
    expect(compiled.validate({ type: 'definition', entity: 'a', definition: 'b' }).valid).toBe(false);
    expect(compiled.validate({ id: 1, type: 'definition', entity: 'a', definition: 'b' }).valid).toBe(true);
  });

  test('does not dispatch when a branch does not pin the property', () => {
    const loose = { type: 'object', properties: { type: { type: 'string' } } };
    expect(compileSchema({ oneOf: [definition, loose] }).discriminator).toBeUndefined();
    expect(
      compileSchema({ oneOf: [definition, { ...relationship, required: ['subject'] }] }).discriminator,
    ).toBeUndefined();
  });

  test('an explicit discriminator overrides detection, and a wrong one is a configuration error', () => {
    const a = { type: 'object', properties: { type: { const: 'x' }, v: { const: 1 } }, required: ['type', 'v'] };
    const b = { type: 'object', properties: { type: { const: 'y' }, v: { const: 2 } }, required: ['type', 'v'] };
    expect(compileSchema({ oneOf: [a, b] }).discriminator).toBe('type');
    const byV = compileSchema({ oneOf: [a, b] }, { discriminator: 'v' });
    expect(byV.discriminator).toBe('v');
    expect(byV.branches).toEqual(['1', '2']);
    expect(() => compileSchema({ oneOf: [a, b] }, { discriminator: 'kind' })).toThrow(
      /discriminator "kind" cannot be used: oneOf branch 0 does not require "kind"/,
    );
    expect(compileSchema({ oneOf: [a, b] }, { discriminator: false }).discriminator).toBeUndefined();
  });

  test('an invalid schema fails at compile time with a ConfigurationError', () => {
    expect(() => compileSchema({ type: 'strnig' })).toThrow(ConfigurationError);
    try {
      compileSchema({ type: 'strnig' });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).code).toBe('SCHEMA_INVALID');
      expect((error as ConfigurationError).message).toMatch(/invalid schema/);
    }
    expect(() => compileSchema({ $schema: 'http://json-schema.org/draft-03/schema#' })).toThrow(/unsupported \$schema/);
    expect(() => compileSchema({ $ref: '#/$defs/missing' })).toThrow(ConfigurationError);
  });

  test('compiles once per schema object', () => {
    const schema = { oneOf: [definition, relationship] };
    expect(compileSchema(schema)).toBe(compileSchema(schema));
    expect(compileSchema(schema, { discriminator: false })).not.toBe(compileSchema(schema));
  });

  test('boolean schemas', () => {
    expect(compileSchema(true).validate({ anything: 1 }).valid).toBe(true);
    expect(compileSchema(false).validate({}).valid).toBe(false);
  });

  test('formatSchemaErrors names the offending property and truncates long lists', () => {
    const errors = [
      {
        path: '',
        keyword: 'additionalProperties',
        message: 'must NOT have additional properties',
        schemaPath: '#',
        params: { additionalProperty: 'extra' },
      },
      { path: '/a', keyword: 'type', message: 'must be string', schemaPath: '#', params: {} },
      { path: '/b', keyword: 'type', message: 'must be string', schemaPath: '#', params: {} },
      { path: '/c', keyword: 'type', message: 'must be string', schemaPath: '#', params: {} },
    ];
    expect(formatSchemaErrors(errors)).toBe(
      'at /: must NOT have additional properties ("extra"); at /a: must be string; at /b: must be string; and 1 more',
    );
  });
});
