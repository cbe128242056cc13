/**
 * The prompt runner on names a configuration, a caller or a model chooses: prompt ids, template
 * variables (nested ones too) and schema references drawn from Object.prototype's members,
 * `__proto__` and random strings, in templates that mix placeholders, `{{#if}}`, `{{#each}}` and
 * what templates may not use (`log`, `lookup`, partials, block parameters, `@data` names).
 * Each prompt is rendered and invoked with a fake model function. The outcome is exactly what a
 * small model of the rules predicts: the rendered prompt with only the values the caller passed
 * as own members, or a `ContractConfigurationError` with the predicted code (PROMPT_INVALID for a
 * refused template or an unknown id, VARIABLES_INVALID for a name not given, a schema code for a
 * reference). Nothing else throws, and nothing is written to the console.
 *
 * Runs: 300 per property on CI, 60 locally; `pnpm hostile` (HOSTILE_RUNS=10000) is the nightly size.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ContractConfigurationError,
  checkCatalog,
  createPromptManager,
  createSchemaRegistry,
  type Llm,
  renderTemplate,
} from '@llmjson/contracts';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, type MockInstance, test, vi } from 'vitest';
import { hostileRuns } from '../support/hostile.js';

const PROTOTYPE_NAMES = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])];

/** A name a model or a caller might choose: a prototype member's, a plain one, or any string. */
const anyName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
  { weight: 2, arbitrary: fc.stringMatching(/^[a-z_][a-z0-9_]{0,5}$/) },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);
/** A name a template can write as a literal segment (`[name]`). */
const segmentName = anyName.filter((name) => /^[^\]\\{}\s]+$/.test(name));

type Value = string | readonly string[] | { readonly [key: string]: string };

/** An object whose own members are exactly these (`__proto__` an ordinary member). */
function ownObject<T>(entries: readonly (readonly [string, T])[]): Record<string, T> {
  const object: Record<string, T> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return object;
}

let marker = 0;
const markerText = fc.constant(null).map(() => `<v${++marker}>`);
const value: fc.Arbitrary<Value> = fc.oneof(
  markerText,
  fc.array(markerText, { maxLength: 3 }),
  fc.array(fc.tuple(segmentName, markerText), { maxLength: 3 }).map((entries) => ownObject(entries)),
);
const variables = fc
  .array(fc.tuple(segmentName, value), { maxLength: 6 })
  .map((entries) => ownObject(entries) as Record<string, Value>);

type Segment =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'path'; readonly path: readonly string[] }
  | { readonly kind: 'if'; readonly name: string; readonly body: string }
  | { readonly kind: 'each'; readonly name: string }
  | { readonly kind: 'refused'; readonly template: string };

/** Templates over names drawn from `given` (the variables' names, nested ones too) half the time. */
function templateOver(given: readonly string[]): fc.Arbitrary<readonly Segment[]> {
  const name = given.length === 0 ? segmentName : fc.oneof(fc.constantFrom(...given), segmentName);
  const refused = fc.oneof(
    name.map((n) => `{{log [${n}]}}`),
    name.map((n) => `{{#log [${n}]}}x{{/log}}`),
    name.map((n) => `{{lookup [${n}] "constructor"}}`),
    name.map((n) => `{{#if (lookup [${n}] "a")}}x{{/if}}`),
    name.map((n) => `{{> [${n}]}}`),
    name.map((n) => `{{#each [${n}] as |item|}}{{item}}{{/each}}`),
    fc.constantFrom(...PROTOTYPE_NAMES).map((n) => `{{@${n}}}`),
    fc.constantFrom('{{helperMissing a}}', '{{blockHelperMissing a}}', '{{#*inline "p"}}x{{/inline}}', '{{if a}}'),
  );
  const segment: fc.Arbitrary<Segment> = fc.oneof(
    {
      weight: 2,
      arbitrary: fc.constantFrom('Hello ', ' - ', '\n', '.').map((text) => ({ kind: 'text', text }) as const),
    },
    {
      weight: 4,
      arbitrary: fc.array(name, { minLength: 1, maxLength: 2 }).map((path) => ({ kind: 'path', path }) as const),
    },
    { weight: 1, arbitrary: name.map((n) => ({ kind: 'if', name: n, body: '[yes]' }) as const) },
    { weight: 1, arbitrary: name.map((n) => ({ kind: 'each', name: n }) as const) },
    { weight: 1, arbitrary: refused.map((template) => ({ kind: 'refused', template }) as const) },
  );
  return fc.array(segment, { minLength: 1, maxLength: 5 });
}

/** The names of the variables and of their members. */
function namesOf(vars: Record<string, Value>): string[] {
  const names = Object.keys(vars);
  for (const v of Object.values(vars)) if (typeof v === 'object' && !Array.isArray(v)) names.push(...Object.keys(v));
  return names;
}

/** Variables, and a template over them. */
const scenario = variables.chain((vars) => templateOver(namesOf(vars)).map((segments) => ({ vars, segments })));

function source(segments: readonly Segment[]): string {
  const one = (s: Segment): string => {
    switch (s.kind) {
      case 'text':
        return s.text;
      case 'path':
        return `{{${s.path.map((n) => `[${n}]`).join('.')}}}`;
      case 'if':
        return `{{#if [${s.name}]}}${s.body}{{/if}}`;
      case 'each':
        return `{{#each [${s.name}]}}({{this}}){{/each}}`;
      case 'refused':
        return s.template;
      default:
        return s satisfies never;
    }
  };
  return segments.map(one).join('');
}

const MISSING = Symbol('missing');
function own(parent: unknown, name: string): unknown {
  return typeof parent === 'object' && parent !== null && Object.hasOwn(parent, name)
    ? (parent as Record<string, unknown>)[name]
    : MISSING;
}

/** How a template prints a value: an object whose own `toString` is not a function reads as `[object Object]`. */
function printed(value: unknown): string {
  try {
    return String(value);
  } catch {
    return '[object Object]';
  }
}

/** What the rules predict: the rendered text, or the error code. */
function predict(segments: readonly Segment[], vars: Record<string, Value>): { text: string } | { code: string } {
  if (segments.some((s) => s.kind === 'refused')) return { code: 'PROMPT_INVALID' };
  let text = '';
  for (const s of segments) {
    if (s.kind === 'text') text += s.text;
    else if (s.kind === 'path') {
      let node: unknown = vars;
      for (const name of s.path) {
        node = own(node, name);
        if (node === MISSING) return { code: 'VARIABLES_INVALID' };
      }
      text += printed(node);
    } else if (s.kind === 'if') {
      const v = own(vars, s.name);
      const empty = v === MISSING || (!v && v !== 0) || (Array.isArray(v) && v.length === 0);
      if (!empty) text += s.body;
    } else if (s.kind === 'each') {
      const v = own(vars, s.name);
      if (typeof v === 'object' && v !== null) for (const item of Object.values(v)) text += `(${printed(item)})`;
    }
  }
  return { text };
}

let written: MockInstance[] = [];
beforeEach(() => {
  written = [
    vi.spyOn(console, 'log'),
    vi.spyOn(console, 'info'),
    vi.spyOn(console, 'warn'),
    vi.spyOn(console, 'error'),
    vi.spyOn(console, 'debug'),
    vi.spyOn(process.stdout, 'write'),
    vi.spyOn(process.stderr, 'write'),
  ];
});
afterEach(() => {
  const calls = written.map((spy) => spy.mock.calls.length);
  vi.restoreAllMocks();
  expect(calls).toEqual(written.map(() => 0));
});

/** The error a call threw: a ContractConfigurationError, and nothing else. */
function configError(error: unknown): ContractConfigurationError {
  expect(error).toBeInstanceOf(ContractConfigurationError);
  return error as ContractConfigurationError;
}

const registry = createSchemaRegistry({ roots: [mkdtempSync(join(tmpdir(), 'llmjson-hostile-contracts-'))] });

describe('prompt templates and ids chosen from hostile names', () => {
  test('renderTemplate: the prompt with only the passed values, or the predicted configuration error', () => {
    fc.assert(
      fc.property(scenario, ({ segments, vars }) => {
        const expected = predict(segments, vars);
        try {
          const text = renderTemplate(source(segments), vars, 'p');
          expect(expected).toEqual({ text });
        } catch (error) {
          expect(expected).toEqual({ code: configError(error).code });
        }
      }),
      { numRuns: hostileRuns },
    );
  });

  test('createPromptManager, render and invoke with a fake model: only the passed values reach the model', async () => {
    await fc.assert(
      fc.asyncProperty(
        variables.chain((vars) =>
          fc.record({
            vars: fc.constant(vars),
            entries: fc.array(fc.tuple(anyName, templateOver(namesOf(vars))), { minLength: 1, maxLength: 4 }),
          }),
        ),
        fc.oneof(anyName, fc.constant(undefined)),
        async ({ vars, entries }, chosen) => {
          const prompts = ownObject(entries.map(([id, segments]) => [id, { prompt: source(segments) }] as const));
          const templates = ownObject(entries);
          const config = { prompts };
          const refusedAtLoad = entries.some(([, segments]) => segments.some((s) => s.kind === 'refused'));
          // The catalog check never throws, and reports exactly the refused templates.
          const report = checkCatalog(config, registry);
          expect(report.ok).toBe(!Object.values(templates).some((s) => s.some((x) => x.kind === 'refused')));
          let manager: ReturnType<typeof createPromptManager>;
          try {
            manager = createPromptManager(config, { registry });
          } catch (error) {
            expect(configError(error).code).toBe('PROMPT_INVALID');
            expect(refusedAtLoad).toBe(true);
            return;
          }
          const id = chosen ?? (entries[0] as readonly [string, unknown])[0];
          const segments = own(templates, id);
          const expected =
            segments === MISSING ? { code: 'PROMPT_INVALID' } : predict(segments as readonly Segment[], vars);
          const seen: string[] = [];
          const llm: Llm = (request) => {
            seen.push(request.prompt);
            return 'answer';
          };
          try {
            const rendered = manager.render(id, vars);
            expect(expected).toEqual({ text: rendered.prompt });
          } catch (error) {
            expect(expected).toEqual({ code: configError(error).code });
          }
          try {
            const answer = await manager.invoke(id, vars, llm);
            expect(answer).toBe('answer');
            expect(expected).toEqual({ text: seen[0] });
          } catch (error) {
            expect(expected).toEqual({ code: configError(error).code });
            expect(seen).toEqual([]);
          }
        },
      ),
      { numRuns: hostileRuns },
    );
  });

  test('schema references from hostile names: a schema configuration error before the model, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(anyName, anyName, async (id, ref) => {
        const config = { prompts: ownObject([[id, { prompt: 'x', 'response-type': 'json', schema_ref: ref }]]) };
        const report = checkCatalog(config, registry);
        expect(report.ok).toBe(false);
        expect(['SCHEMA_NOT_FOUND', 'SCHEMA_REF_INVALID']).toContain(report.problems[0]?.code);
        const manager = createPromptManager(config, { registry });
        const llm: Llm = () => {
          throw new Error('the model must not be called');
        };
        const error = await manager.invoke(id, {}, llm).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(['SCHEMA_NOT_FOUND', 'SCHEMA_REF_INVALID']).toContain(configError(error).code);
      }),
      { numRuns: hostileRuns },
    );
  });
});
