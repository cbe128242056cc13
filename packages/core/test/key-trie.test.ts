/**
 * The automaton of declared property names that the prefix feed follows keys through
 * (key-trie.ts): which names it holds, its bounds, and that a schema past them is still checked
 * (keys read as text).
 */
import { createJsonlDecoder, type Diagnostic, type JsonSchema, linePrefixCheck } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { describe, expect, test } from 'vitest';
import { keyTrieOf } from '../src/prefix/key-trie.js';

/** Whether `name` can be followed through the automaton to a state whose text it is (a declared name or a prefix of one). */
function follows(schema: JsonSchema, name: string): boolean {
  const trie = keyTrieOf(schema);
  if (trie === undefined) return false;
  let state = 1;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const column = c < 0x80 ? (trie.columns[c] as number) : 0;
    state = column === 0 ? 0 : (trie.next[state * trie.width + column] as number);
    if (state === 0) return false;
  }
  return trie.names[state] === name;
}

function violations(schema: JsonSchema, text: string, size: number): Diagnostic[] {
  const found: Diagnostic[] = [];
  const decoder = createJsonlDecoder(
    { schema, compileJsonSchema: compileSchema, prefixCheck: true, prefixCheckWith: linePrefixCheck },
    { value() {}, diagnostic: (d) => void (d.reason === 'violation' && found.push(d)) },
  );
  for (let i = 0; i < text.length; i += size) decoder.write(text.slice(i, i + size));
  decoder.end();
  return found;
}

describe('key automaton', () => {
  test('holds the names of every properties object, wherever it is; not enum or const data', () => {
    const schema: JsonSchema = {
      $defs: { item: { type: 'object', properties: { quote: {}, page: {} } } },
      allOf: [{ properties: { first: {} } }],
      properties: { outer: { type: 'array', items: { properties: { inner: {} } } }, 'with space': {} },
      enum: [{ properties: { fromEnum: {} } }],
      const: { properties: { fromConst: {} } },
    };
    for (const name of ['quote', 'page', 'first', 'outer', 'inner', 'with space'])
      expect(follows(schema, name), name).toBe(true);
    for (const name of ['fromEnum', 'fromConst', 'properties', 'items', 'quotes', 'pages']) {
      expect(follows(schema, name), name).toBe(false);
    }
  });

  test('names it cannot follow (escapes, quotes, outside printable ASCII, too long) are left out', () => {
    const schema: JsonSchema = {
      properties: { 'a"b': {}, 'a\\b': {}, é: {}, 'tab\there': {}, [`${'x'.repeat(65)}`]: {}, plain: {} },
    };
    expect(follows(schema, 'plain')).toBe(true);
    for (const name of ['a"b', 'a\\b', 'é', 'tab\there', 'x'.repeat(65)])
      expect(follows(schema, name), name).toBe(false);
    expect(keyTrieOf({ type: 'object' })).toBeUndefined();
    expect(keyTrieOf(true)).toBeUndefined();
  });

  test('bounded: a schema past its bounds gets no automaton, and its keys are still checked as text', () => {
    const properties: Record<string, JsonSchema> = {};
    // 2 000 names of 60 characters each need ~120 000 states: past the bound of 8 192.
    for (let i = 0; i < 2000; i++) properties[`${String(i).padStart(4, '0')}${'k'.repeat(56)}`] = { type: 'integer' };
    const schema: JsonSchema = { type: 'object', properties, additionalProperties: false };
    expect(keyTrieOf(schema)).toBeUndefined();
    const declared = `0007${'k'.repeat(56)}`;
    const text = `{"${declared}":1,"${declared}x":2}\n{"${declared}":"s"}\n`;
    for (const size of [1, 3, 4, 64]) {
      expect(violations(schema, text, size).map((d) => [d.line, d.rule, d.path])).toEqual([
        [1, 'additionalProperties', `/${declared}x`],
        [2, 'type', `/${declared}`],
      ]);
    }
  });
});
