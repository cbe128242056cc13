/**
 * The benchmarks time only entrants that did the same work: these tests run every entrant of
 * every scenario once, on the quick inputs, and check what it delivers (no timing here).
 */
import { parseJsonl } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { compileStandardSchema } from '@llmjson/core/internal';
import { describe, expect, test } from 'vitest';
import { ajvCheck, jsonrepairParse, matchBrackets } from '../../benchmarks/src/entrants.js';
import {
  elementDocument,
  extractionSchema,
  jsonlAnswer,
  proseThenFence,
  triadObjects,
  triadSchema,
} from '../../benchmarks/src/inputs.js';
import type { Scenario } from '../../benchmarks/src/scenario.js';
import { aiSdkOutput } from '../../benchmarks/src/scenarios/ai-sdk-output.js';
import { delivery } from '../../benchmarks/src/scenarios/delivery.js';
import { elements } from '../../benchmarks/src/scenarios/elements.js';
import { failFast } from '../../benchmarks/src/scenarios/fail-fast.js';
import { jsonlMatrix } from '../../benchmarks/src/scenarios/jsonl-matrix.js';
import { liveClient } from '../../benchmarks/src/scenarios/live-client.js';
import { liveWire } from '../../benchmarks/src/scenarios/live-wire.js';
import { longLine } from '../../benchmarks/src/scenarios/long-line.js';
import { noisyAnswers, noisyBatch } from '../../benchmarks/src/scenarios/noisy-answers.js';
import { partial } from '../../benchmarks/src/scenarios/partial.js';
import { prefixCheck } from '../../benchmarks/src/scenarios/prefix-check.js';
import { salvage } from '../../benchmarks/src/scenarios/salvage.js';
import { schemaVendors, triadZod } from '../../benchmarks/src/scenarios/schema-vendors.js';

const scenarios: Scenario[] = [
  jsonlMatrix,
  noisyAnswers,
  longLine,
  delivery,
  salvage,
  elements,
  partial,
  prefixCheck,
  schemaVendors,
  failFast,
  liveClient,
  liveWire,
  // ai 7 needs Node >= 22: on Node 20 the scenario warns and has no cases.
  ...(aiSdkOutput.cases(true).length > 0 ? [aiSdkOutput] : []),
];

describe.each(scenarios.map((s) => [s.name, s] as const))('scenario %s', (_name, scenario) => {
  const cases = scenario.cases(true);

  test('has cases, each with llmjson and at least one peer in every layer it uses', () => {
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      const layers = new Set(c.contestants.map((x) => x.entrant.layer));
      for (const layer of layers) {
        if (layer === 'ceiling' || layer === 'floor') continue;
        const here = c.contestants.filter((x) => x.entrant.layer === layer);
        expect(here.filter((x) => x.entrant.ours).length, `${c.label} ${layer}: llmjson`).toBeGreaterThan(0);
        expect(here.filter((x) => !x.entrant.ours).length, `${c.label} ${layer}: peers`).toBeGreaterThan(0);
      }
      const names = c.contestants.map((x) => x.entrant.name);
      expect(new Set(names).size, `${c.label}: entrant names are unique`).toBe(names.length);
    }
  });

  for (const c of cases) {
    for (const { entrant, expected } of c.contestants) {
      test(`${c.label}: ${entrant.name} delivers exactly its expected values`, async () => {
        // Only the floor that swallows every chunk delivers nothing.
        if (!entrant.name.startsWith('do-nothing Transform (b)')) expect(expected.length).toBeGreaterThan(0);
        expect(await entrant.run()).toStrictEqual(expected);
        // Entrants are reusable: the harness runs each one many times.
        expect(await entrant.run()).toStrictEqual(expected);
      });
    }
  }
});

describe('noisy answers', () => {
  const { answers, intact } = noisyBatch(true);
  const schema = extractionSchema();

  test('the batch holds every kind of slip the scenario describes', () => {
    const kinds = new Set(answers.flatMap((a) => a.items.map((i) => i.kind)));
    expect([...kinds].sort()).toStrictEqual(['broken', 'clean', 'cut', 'invalid', 'pretty', 'trailing-comma']);
    expect(new Set(answers.map((a) => a.framing))).toStrictEqual(new Set(['fenced', 'bare']));
    expect(intact).toBeGreaterThan(0);
  });

  test.each(answers.map((a, i) => [i, a] as const))('answer %i: llmjson accounts for every line', (_i, answer) => {
    const { stats, diagnostics } = parseJsonl(answer.text, { schema, compileJsonSchema: compileSchema });
    expect(stats.valueLines + stats.skippedLines + stats.reportedLines).toBe(stats.lines);
    const count = (kind: string) => answer.items.filter((item) => item.kind === kind).length;
    const reasons = (...rs: string[]) => diagnostics.filter((d) => rs.includes(d.reason)).length;
    expect(reasons('recovered')).toBe(count('trailing-comma') + count('pretty'));
    expect(reasons('schema')).toBe(count('invalid'));
    // A line cut inside a string is a syntax error at its line break; one cut between tokens
    // leaves a value open, which the next value, a fence or the end of input reports.
    expect(reasons('syntax', 'truncated')).toBe(count('broken') + count('cut'));
    const cut = count('cut') > 0;
    expect(reasons('prose')).toBe(answer.framing === 'fenced' ? (cut ? 1 : 2) : 0);
    for (const d of diagnostics) {
      expect(d.line).toBeGreaterThan(0);
      expect(d.message.length).toBeGreaterThan(0);
    }
  });
});

describe('jsonl matrix', () => {
  const cases = jsonlMatrix.cases(true);

  test('covers chunking × line size × schema, with every entrant the targets need', () => {
    expect(cases).toHaveLength(8);
    const names = (i: number) => cases[i]?.contestants.map((x) => x.entrant.name) ?? [];
    for (const [i, c] of cases.entries()) {
      const here = names(i);
      for (const prefix of [
        'JSON.parse',
        'llmjson createJsonlDecoder',
        'llmjson createJsonlStream',
        '@streamparser/json JSONParser',
        'split2 + JSON.parse',
        'stream-json jsonl/Parser',
        'node:readline + JSON.parse',
        'do-nothing Transform (a)',
        'do-nothing Transform (b)',
      ]) {
        expect(
          here.some((n) => n.startsWith(prefix)),
          `${c.label}: ${prefix}`,
        ).toBe(true);
      }
    }
    const withSchema = cases.filter((c) => c.contestants.some((x) => x.entrant.layer === 'direct'));
    expect(withSchema).toHaveLength(4);
    for (const c of withSchema) {
      const here = c.contestants.map((x) => x.entrant.name);
      expect(here).toContain('split2 + JSON.parse (no validation)');
      expect(here).toContain('stream-json jsonl/Parser (no validation)');
      expect(here.some((n) => n.startsWith('JSON.parse + switch on "type"'))).toBe(true);
      expect(here).toContain('llmjson createJsonlDecoder, whole oneOf (discriminator: false)');
    }
  });

  test('4-char cases write strings to the streams, 64 KiB cases bytes', () => {
    for (const c of cases) {
      const floor = c.contestants.find((x) => x.entrant.name.startsWith('do-nothing Transform (a)'));
      const chunks = floor?.expected ?? [];
      expect(chunks.length).toBeGreaterThan(0);
      if (c.label === '4-char chunks') expect(chunks.every((x) => typeof x === 'string')).toBe(true);
      else expect(chunks.every((x) => x instanceof Uint8Array && x.length <= 65_536)).toBe(true);
    }
  });

  test('the 3-branch schema accepts the valid objects and rejects the invalid ones', () => {
    const check = ajvCheck(triadSchema());
    const answer = jsonlAnswer(20_000, 9, 0.3, triadObjects());
    expect(answer.valid.length).toBeLessThan(answer.objects.length);
    for (const object of answer.objects) expect(check(object)).toBe(answer.valid.includes(object));
    const types = new Set(answer.objects.map((o) => (o as { type: string }).type));
    expect([...types].sort()).toStrictEqual(['attribute', 'definition', 'relationship']);
  });
});

describe('schema vendors', () => {
  test('the zod union accepts exactly what the 3-branch JSON Schema accepts', () => {
    const check = ajvCheck(triadSchema());
    const zod = triadZod();
    const answer = jsonlAnswer(20_000, 9, 0.3, triadObjects());
    expect(answer.valid.length).toBeLessThan(answer.objects.length);
    for (const object of answer.objects) expect(zod.union.safeParse(object).success).toBe(check(object));
  });

  test('llmjson dispatches on "type" from the zod union\'s JSON Schema export', () => {
    const compiled = compileStandardSchema(triadZod().union);
    expect(compiled.discriminator).toBe('type');
    expect(compiled.branches).toStrictEqual(['definition', 'relationship', 'attribute']);
  });

  test('one case, 4-char chunks, with no schema, ajv and zod on every path', () => {
    const names = schemaVendors.cases(true).map((c) => c.contestants.map((x) => x.entrant.name));
    expect(names).toHaveLength(1);
    for (const path of ['llmjson createJsonlDecoder', 'llmjson createJsonlStream']) {
      for (const schema of ['no schema', 'JSON Schema (ajv)', 'zod union']) {
        expect(names[0]).toContain(`${path}, ${schema}`);
      }
    }
  });
});

describe('salvage', () => {
  const cases = salvage.cases(true);
  const names = (label: string) => cases.find((c) => c.label === label)?.contestants.map((x) => x.entrant.name) ?? [];

  test('growing prose cases then the fenced-only answer, with the peers the issue names', () => {
    expect(cases.map((c) => c.label)).toStrictEqual([
      '5 KB prose + fence',
      '50 KB prose + fence',
      'fenced-only answer',
    ]);
    const llmjson = ['llmjson extractAllJson', 'llmjson createSalvageScanner, 4-char chunks', 'llmjson extractJson'];
    const peers = ['nested-loop bracket matcher + JSON.parse', 'best-effort-json-parser parse'];
    for (const c of cases) {
      expect(names(c.label)).toStrictEqual(
        expect.arrayContaining(['JSON.parse of a valid document of the same size', ...llmjson, ...peers]),
      );
    }
    // jsonrepair takes a fenced document, not prose around one.
    expect(names('fenced-only answer')).toContain('jsonrepair + JSON.parse');
    expect(names('5 KB prose + fence')).not.toContain('jsonrepair + JSON.parse');
    // The ceiling parses a document as large as the input: a compact one for prose, the
    // pretty-printed answer itself for the fenced-only answer.
    for (const c of cases) {
      const ceiling = c.contestants.find((x) => x.entrant.layer === 'ceiling');
      const indent = c.label === 'fenced-only answer' ? 2 : undefined;
      const bytes = Buffer.byteLength(JSON.stringify(ceiling?.expected[0], null, indent));
      expect(bytes).toBeGreaterThan(0.9 * c.size);
      expect(bytes).toBeLessThan(1.1 * c.size);
    }
  });

  test('the matcher finds every value outside a failed span, and resumes after a value', () => {
    expect(matchBrackets('see [1] and {x [2]} then {"a": [3, "]"]} [4')).toStrictEqual([[1], [2], { a: [3, ']'] }]);
    // A lone quote before a value hides it only from the counters started before the quote.
    expect(matchBrackets('{a "b} [5]')).toStrictEqual([[5]]);
    expect(matchBrackets('no brackets')).toStrictEqual([]);
  });

  test('jsonrepair does not find the answer in prose around a fence', () => {
    const input = proseThenFence(5_000, 60);
    let delivered: unknown[] | undefined;
    try {
      delivered = jsonrepairParse(input.text).run() as unknown[];
    } catch {
      delivered = undefined;
    }
    expect(delivered).not.toStrictEqual([input.answer]);
  });
});

describe('elements', () => {
  const cases = elements.cases(true);
  const names = (label: string) => cases.find((c) => c.label === label)?.contestants.map((x) => x.entrant.name) ?? [];

  test('64 KiB and 4-char chunks, with the entrants and peers the issue names', () => {
    expect(cases.map((c) => c.label)).toStrictEqual(['64 KiB chunks', '4-char chunks']);
    const common = [
      'JSON.parse of the whole document, then .items',
      'llmjson createElementScanner',
      "@streamparser/json JSONParser, paths ['$.items.*'], keepStack: false",
    ];
    expect(names('4-char chunks')).toStrictEqual(common);
    expect(names('64 KiB chunks')).toStrictEqual(
      expect.arrayContaining([
        ...common,
        'llmjson extractElements, whole text',
        'llmjson createElementStream',
        "stream-json parser + pick({ filter: 'items' }) + streamArray",
      ]),
    );
  });

  test('the document is {title, items} with nested, multi-byte, escaped items', () => {
    const document = elementDocument(20_000, 90);
    const parsed = JSON.parse(document.text) as { title: unknown; items: unknown[] };
    expect(Object.keys(parsed)).toStrictEqual(['title', 'items']);
    expect(parsed.items).toStrictEqual(document.items);
    expect(document.items.length).toBeGreaterThan(5);
    expect(Buffer.byteLength(document.text)).toBeGreaterThan(document.text.length);
    expect(document.text).toContain('\\"');
    expect(document.text).toContain('\\n');
    const item = document.items[0] as { source: { authors: unknown[] } };
    expect(item.source.authors.length).toBeGreaterThan(0);
  });

  test('the quick document spans several 64 KiB reads, so elements cross chunk boundaries', () => {
    const size = cases.find((c) => c.label === '64 KiB chunks')?.size ?? 0;
    expect(size).toBeGreaterThan(2 * 65_536);
    expect(cases.find((c) => c.label === '4-char chunks')?.size).toBe(size);
  });
});

describe('prefix check', () => {
  const cases = prefixCheck.cases(true);

  test('one quick case each (partial builder, JSONL decoder, Node JSONL stream, element scanner), prefix checks on against off, on the same input', () => {
    expect(cases.map((c) => c.label)).toStrictEqual([
      '10 KB',
      'JSONL 10 KB',
      'Node JSONL stream 10 KB',
      'elements 10 KB',
    ]);
    const floor = 'floor: prefixCheck: false + one charCodeAt pass over every chunk (no parsing)';
    const names: Record<string, [string, string, string, string?]> = {
      '10 KB': [
        'llmjson createPartialBuilder, schema, prefix checks on (default)',
        'llmjson createPartialBuilder, schema, prefixCheck: false',
        'engine',
      ],
      'JSONL 10 KB': [
        'llmjson createJsonlDecoder, schema, prefixCheck: true',
        'llmjson createJsonlDecoder, schema, prefixCheck: false (default)',
        'engine',
        floor,
      ],
      'Node JSONL stream 10 KB': [
        'llmjson createJsonlStream (Node), schema, failFast: true (prefix checks on, the default with failFast)',
        'llmjson createJsonlStream (Node), schema, failFast: true, prefixCheck: false',
        'stream',
      ],
      'elements 10 KB': [
        'llmjson createElementScanner, element schema, prefixCheck: true',
        'llmjson createElementScanner, element schema, prefixCheck: false (default)',
        'engine',
        floor,
      ],
    };
    for (const c of cases) {
      const [on, off, layer, floorName] = names[c.label] ?? ['', '', ''];
      expect(c.contestants.map((x) => [x.entrant.name, x.entrant.layer, x.entrant.ours])).toStrictEqual([
        [on, layer, true],
        [off, layer, false],
        ...(floorName === undefined ? [] : [[floorName, 'floor', false]]),
      ]);
      // All deliver the same value (and throw on any diagnostic): only the prefix checks differ.
      for (const x of c.contestants) expect(x.expected).toBe(c.contestants[0]?.expected);
      expect(c.size).toBeGreaterThan(9_000);
    }
  });

  test('every entrant delivers exactly its expected values with no diagnostic', async () => {
    for (const c of cases) {
      for (const { entrant, expected } of c.contestants) expect(await entrant.run(), entrant.name).toEqual(expected);
    }
  });
});

describe('fail fast', () => {
  const cases = failFast.cases(true);

  test('quick cases of 1 KB and 10 KB: failFast and the hand-made pipeline stop at the bad line, skipping goes on', () => {
    expect(cases.map((c) => c.label)).toStrictEqual(['1 KB', '10 KB']);
    for (const c of cases) {
      const expected = (prefix: string) => c.contestants.find((x) => x.entrant.name.startsWith(prefix))?.expected ?? [];
      const fast = expected('llmjson createJsonlStream, failFast');
      const skip = expected('llmjson createJsonlStream (skip the bad line, go on)');
      // Line 2 breaks the enum: one value before it; the rest of the answer after it.
      expect(fast).toHaveLength(1);
      expect(expected('split2 + JSON.parse + ajv, destroyed at the first failure')).toStrictEqual(fast);
      expect(skip[0]).toStrictEqual(fast[0]);
      expect(skip.length).toBeGreaterThan(fast.length + 5);
      expect(skip.every((value) => (value as { kind: string }).kind === 'fact')).toBe(true);
    }
  });
});
