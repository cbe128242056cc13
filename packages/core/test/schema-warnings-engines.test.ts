/**
 * Every engine that takes a schema hands the schema's warnings to `onWarning` once, when it is
 * made: the element scanner (through the document schema's items), the tool-call decoder (once
 * per tool, not at every call), and `extractJson` with `repair` (which validates twice, and says
 * the warnings once).
 */
import {
  createElementScanner,
  createToolCallDecoder,
  extractJson,
  type JsonSchema,
  type SchemaWarning,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { describe, expect, test } from 'vitest';

const port: JsonSchema = { type: 'object', properties: { port: { type: 'string', format: 'ports' } } };

function collect(): { warnings: SchemaWarning[]; onWarning: (w: SchemaWarning) => void } {
  const warnings: SchemaWarning[] = [];
  return { warnings, onWarning: (w) => warnings.push(w) };
}

describe('onWarning reaches every engine that takes a schema', () => {
  test('the element scanner: the items schema of a document schema', () => {
    const { warnings, onWarning } = collect();
    const scanner = createElementScanner(
      { schema: { type: 'array', items: port }, compileJsonSchema: compileSchema, onWarning },
      { value() {}, diagnostic() {} },
    );
    scanner.write('[{"port": "80"}, {"port": "81"}]');
    scanner.end();
    expect(warnings.map((w) => w.kind)).toEqual(['unknown-format']);
    expect(warnings[0]?.message).toContain('ports');
  });

  test('the tool-call decoder: once per tool when it is made, not at each call', () => {
    const { warnings, onWarning } = collect();
    const decoder = createToolCallDecoder(
      { input: 'openai', tools: { open: port }, compileJsonSchema: compileSchema, onWarning },
      { update() {}, diagnostic() {} },
    );
    expect(warnings).toHaveLength(1);
    const call = (index: number) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index, id: `c${index}`, type: 'function', function: { name: 'open', arguments: '{"port": "80"}' } }] } }] })}\n\n`;
    decoder.write(call(0) + call(1));
    decoder.end();
    expect(warnings).toHaveLength(1);
  });

  test('extractJson with repair: once, though it validates the text and its repair', () => {
    const { warnings, onWarning } = collect();
    const found = extractJson('here: {"port": "80",}', {
      schema: port,
      compileJsonSchema: compileSchema,
      repair: true,
      onWarning,
    });
    expect(found?.value).toEqual({ port: '80' });
    expect(warnings).toHaveLength(1);
  });
});

describe('a reference the walks without a validator cannot follow is said once per schema', () => {
  const tree: JsonSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $dynamicAnchor: 'node',
    type: 'object',
    properties: { children: { type: 'array', items: { $dynamicRef: '#node' } } },
  };

  test('a $dynamicRef (2020-12) is a reference-unchecked warning naming it and its place', () => {
    const warnings = compileSchema(tree).warnings ?? [];
    expect(warnings.map((w) => [w.kind, w.schemaPath])).toEqual([
      ['reference-unchecked', '#/properties/children/items/$dynamicRef'],
    ]);
    expect(warnings[0]?.message).toContain('checked once its value is complete');
  });

  test('the same keyword in draft-07, where the validator ignores it, says nothing', () => {
    const { $schema: _, ...draft07 } = tree as Record<string, unknown>;
    expect(compileSchema(draft07).warnings ?? []).toEqual([]);
  });

  test('references the walks follow say nothing', () => {
    const local: JsonSchema = {
      $id: 'https://example.com/r.json',
      properties: { a: { $ref: '#/definitions/a' }, b: { $ref: 'b.json' } },
      definitions: { a: { type: 'string' }, b: { $id: 'b.json', type: 'number' } },
    };
    expect(compileSchema(local).warnings ?? []).toEqual([]);
  });
});
