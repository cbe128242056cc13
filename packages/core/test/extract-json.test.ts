/**
 * Regression tests for `extractJson` and `extractAllJson`: recovery before an inner value is
 * preferred, repair of the candidate around a piece of a broken answer, the depth guard on
 * found and repaired values, and validators that throw. Every one-shot result is checked
 * against the streaming scanner whole and at every chunk size 1..64.
 */
import {
  createSalvageScanner,
  type Diagnostic,
  type ExtractJsonOptions,
  extractAllJson,
  extractJson,
  type SalvagedValue,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { describe, expect, test } from 'vitest';
import { everyChunkSize } from '../../../test/support/chunking.js';

/** `extractJson`, after checking that the scanner agrees with `extractAllJson` under every chunking. */
function extract(
  text: string,
  options: ExtractJsonOptions = {},
): { found: SalvagedValue | undefined; reasons: string[] } {
  const { repair: _repair, onDiagnostic: _onDiagnostic, ...scanOptions } = options;
  const oneShot: Diagnostic[] = [];
  const all = extractAllJson(text, { ...scanOptions, onDiagnostic: (d) => oneShot.push(d) });
  for (const [label, chunks] of everyChunkSize(text)) {
    const values: SalvagedValue[] = [];
    const diagnostics: Diagnostic[] = [];
    const scanner = createSalvageScanner(scanOptions, {
      value: (v) => values.push(v),
      diagnostic: (d) => diagnostics.push(d),
    });
    for (const chunk of chunks) scanner.write(chunk);
    scanner.end();
    expect(values, label).toEqual(all);
    expect(diagnostics, label).toEqual(oneShot);
  }
  const diagnostics: Diagnostic[] = [];
  const found = extractJson(text, { ...options, onDiagnostic: (d) => diagnostics.push(d) });
  return { found, reasons: diagnostics.map((d) => d.reason) };
}

const deep = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

describe('extractJson: recovery comes before anything nested', () => {
  test('fenced-object-with-trailing-comma: the object, not its tags array', () => {
    const text = 'Here you go:\n```json\n{"title": "x", "tags": ["a", "b"],\n}\n```\n';
    const { found, reasons } = extract(text);
    expect(found).toMatchObject({ value: { title: 'x', tags: ['a', 'b'] }, source: 'fence', recovered: true });
    expect(reasons).toEqual(['recovered']);
  });

  test('the whole text with a trailing comma wins over a later fence', () => {
    const { found } = extract('{"a": [1,],\n "b": "```json\\n[2]\\n```"\n}');
    expect(found).toMatchObject({ value: { a: [1], b: '```json\n[2]\n```' }, source: 'document', recovered: true });
  });

  test('a recovered outer value in prose wins over the array inside it', () => {
    const { found, reasons } = extract('Result: {"ids": [1, 2], "more": true,} — done');
    expect(found).toMatchObject({ value: { ids: [1, 2], more: true }, source: 'embedded', recovered: true });
    expect(reasons).toEqual(['recovered']);
  });

  test('strict: the value exactly as JSON.parse reads it, no recovery', () => {
    const { found, reasons } = extract('```json\n{"title": "x", "tags": ["a", "b"],\n}\n```', { strict: true });
    expect(found).toMatchObject({ value: ['a', 'b'], source: 'fence' });
    expect(found?.recovered).toBeUndefined();
    expect(reasons).toEqual([]);
  });
});

describe('extractJson repair: a broken answer is repaired before a piece of it wins', () => {
  test('fenced object that fails after its inner array: repaired whole with repair: true', () => {
    const text = '```json\n{"title": "x", "tags": ["a", "b"], \'n\': 1}\n```';
    expect(extract(text).found).toMatchObject({ value: ['a', 'b'], source: 'fence' });
    const { found, reasons } = extract(text, { repair: true });
    expect(found).toMatchObject({ value: { title: 'x', tags: ['a', 'b'], n: 1 }, source: 'fence', repaired: true });
    expect(reasons).toEqual(['recovered']);
  });

  test('in prose too, when the text around the brackets repairs', () => {
    const { found } = extract('Here: {"a": 1, "b": [1, 2], \'c\': 3}', { repair: true });
    expect(found).toMatchObject({ value: { a: 1, b: [1, 2], c: 3 }, repaired: true });
  });

  test('the piece stays the answer when nothing around it repairs', () => {
    const { found } = extract('Items: {"x": [1], "y" 2} and then text [9] end', { repair: true });
    expect(found?.value).toEqual([1]);
    expect(found?.repaired).toBeUndefined();
  });

  test('a valid value that is not a piece of anything is never replaced by repair', () => {
    const { found, reasons } = extract('```jsonl\n{"a": 1}\n{"b": 2}\n```', { repair: true });
    expect(found).toMatchObject({ value: { a: 1 }, source: 'fence' });
    expect(reasons).toEqual([]);
  });
});

describe('extractJson: depth guard', () => {
  test('a too-deep document or fence is reported, never returned; values around it still are', () => {
    expect(extract(deep(3000))).toEqual({ found: undefined, reasons: ['too-deep'] });
    const { found, reasons } = extract(`Example {"a": 1}\n\`\`\`json\n${deep(3000)}\n\`\`\``);
    expect(found?.value).toEqual({ a: 1 });
    expect(reasons).toEqual(['too-deep']);
  });

  test('maxDepth applies to repaired values too', () => {
    const text = `${'['.repeat(600)}'x'${']'.repeat(600)}`;
    const diagnostics: Diagnostic[] = [];
    expect(extractJson(text, { repair: true, onDiagnostic: (d) => diagnostics.push(d) })).toBeUndefined();
    expect(diagnostics.map((d) => d.reason)).toContain('too-deep');
    expect(extractJson(text, { repair: true, maxDepth: 1000 })?.repaired).toBe(true);
  });

  test('near-JSON deep enough to overflow jsonrepair is no value and no crash', () => {
    const text = `${"{'a':".repeat(20_000)}1${'}'.repeat(20_000)}`;
    expect(() => extractJson(text, { repair: true })).not.toThrow();
    expect(extractJson(text, { repair: true })).toBeUndefined();
  });
});

describe('a validator that fails on data', () => {
  test('with maxDepth raised past what a recursive schema can follow: a schema diagnostic for that value only', () => {
    const tree = {
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: '#' } } },
    } as const;
    const deepTree = `${'{"children":['.repeat(20_000)}{}${']}'.repeat(20_000)}`;
    const text = `First ${deepTree}, then {"children": []}`;
    const diagnostics: Diagnostic[] = [];
    const options = { schema: tree, compileJsonSchema: compileSchema, maxDepth: 100_000 };
    const all = extractAllJson(text, { ...options, onDiagnostic: (d) => diagnostics.push(d) });
    expect(all.map((v) => v.value)).toEqual([{ children: [] }]);
    expect(diagnostics.map((d) => d.reason)).toEqual(['schema']);
    expect(extractJson(text, options)?.value).toEqual({ children: [] });
  });
});
