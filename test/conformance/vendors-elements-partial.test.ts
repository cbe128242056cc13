/**
 * The recorded fixtures that carry a schema, run through the Node streams (@llmjson/node, ajv by
 * default) once with the JSON Schema and once with the equivalent zod 4, valibot 1 (with and
 * without `toStandardJsonSchema`) and arktype 2 schema (test/support/standard-schemas.ts):
 * - JSONL: fixtures/answers/{definition-relationship, ontology, schema-id-breaks-discriminator-dispatch};
 * - salvage: fixtures/salvage/preamble-then-answer-schema and the three JSONL answers;
 * - elements: fixtures/contracts/answers/{extract-definitions, extract-relationships} (elementSchema
 *   and the document schema), section-text(-mismatch) at `$.sections`, and each JSONL answer's
 *   lines as one array (elementSchema and an array document schema);
 * - partial: section-text(-mismatch), extract-definitions/-relationships, each JSONL answer as
 *   one array, and each JSON line of those answers as a document of its own.
 * (fixtures/ has no element or partial fixtures of its own: these are the recorded answers that
 * fit those engines.) Each case runs whole, at every byte chunk size 1..64 and at arbitrary
 * split points (fast-check); values, diagnostics (reason, line, endLine, offset, column,
 * excerpt, branch, path, rule, error paths) and stats must be the JSON Schema run's. Only
 * messages and error keywords are the vendor's wording. Every difference, applied by
 * `expectedFor` and asserted on its own at the end of the file:
 *
 * | #   | vendor                     | engines             | difference                                                        | reason                                                                                              |
 * | --- | -------------------------- | ------------------- | ----------------------------------------------------------------- | --------------------------------------------------------------------------------------------------- |
 * | (1) | valibot without an export  | all                 | no `branch` on values or diagnostics                              | no JSON Schema export, no dispatch (schema-limited, decision 016)                                   |
 * | (2) | valibot without an export  | all                 | a value naming no branch: error path `/action` (`/type`), not ``  | without dispatch the vendor's variant reports it at the property; a missing discriminator is at the root for dispatch |
 * | (3) | valibot without an export  | partial             | no subtree checks: only the complete document is checked          | subtree checks need sub-schemas from an export                                                      |
 * | (4) | valibot without an export  | elements            | a document `schema` is refused at creation (ConfigurationError)   | the element schema is found in the export; `elementSchema` works                                   |
 * | (5) | every vendor               | partial (document)  | a union below the root: the named branch's issues only            | ajv reports every failing `oneOf` branch (and the `oneOf`); discriminated unions validate one branch |
 * | (6) | zod 4                      | elements (document schema), partial subtrees | two errors at a bad date (`pattern`, `format`) | ajv validates zod's export, which gives z.iso.date() both a pattern and `format: date`  |
 * | (7) | arktype 2 (string.date.iso)| elements, partial   | document schema refused (SCHEMA_INVALID); no partial subtree checks | its export's date pattern has a lookahead, which ajv's linear-time regex engine refuses            |
 * | (8) | arktype 2                  | all (wording)       | dispatch failure lists branches sorted (`"cancel", "create"`)     | arktype's export orders the union's branches itself                                                 |
 * | (9) | valibot without an export  | partial             | no prefix checks: no `violation` diagnostics                      | prefix checks read the schema's rules from an export (decision 018)                                 |
 *
 * Not differences: with an export, dispatch failures have the JSON Schema run's exact words
 * ((8) aside); elements through a document schema and partial subtree checks are decided by
 * ajv on the export, so their messages are ajv's too. Prefix checks (`violation`: path, rule,
 * offset, excerpt) are the JSON Schema run's for every vendor with an export, arktype's (7)
 * included: the checker models no `pattern`, so the export ajv refuses serves it unchanged.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  ConfigurationError,
  createElementStream,
  createPartialStream,
  type Diagnostic,
  type SchemaInput,
} from '@llmjson/node';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { chunkBytes, numRuns, splitAt, splitPoints } from '../support/chunking.js';
import { streamChunks } from '../support/collect.js';
import { salvageStreamChunks } from '../support/salvage.js';
import {
  type ArrayFamilies,
  arrayOf,
  calendarAction,
  definitionRelationship,
  extractDefinitions,
  extractRelationships,
  ontology,
  type SchemaFamily,
  sections,
  type VendorSchema,
} from '../support/standard-schemas.js';

const fixture = (path: string): string => readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), 'utf8');

/** Arbitrary split points per run: a tenth of the property default (each run is 5 whole stream runs). */
const SPLIT_RUNS = Math.max(10, Math.round(numRuns / 10));

/** What one stream run hands out, in order. */
interface Run {
  readonly outputs: readonly unknown[];
  readonly diagnostics: readonly Diagnostic[];
  readonly stats: unknown;
}

type Engine = 'JSONL' | 'salvage' | 'elements' | 'partial';

/** Feeds `chunks` to a stream and gathers its outputs, diagnostics and stats. */
async function drain(
  stream: NodeJS.ReadWriteStream & { readonly stats: unknown },
  chunks: readonly Uint8Array[],
  extra?: () => unknown,
): Promise<Run> {
  const outputs: unknown[] = [];
  const diagnostics: Diagnostic[] = [];
  stream.on('diagnostic', (d: Diagnostic) => diagnostics.push(d));
  await pipeline(Readable.from(chunks, { objectMode: true }), stream, async (source: AsyncIterable<unknown>) => {
    for await (const output of source) outputs.push(output);
  });
  return {
    outputs: extra === undefined ? outputs : [...outputs, extra()],
    diagnostics,
    stats: structuredClone(stream.stats),
  };
}

const runners: Record<Engine, (chunks: readonly Uint8Array[], options: Record<string, unknown>) => Promise<Run>> = {
  JSONL: async (chunks, options) => {
    const { records, diagnostics, stats } = await streamChunks(chunks, options);
    return { outputs: records, diagnostics, stats };
  },
  salvage: async (chunks, options) => {
    const { values, diagnostics, stats } = await salvageStreamChunks(chunks, options);
    return { outputs: values, diagnostics, stats };
  },
  elements: (chunks, options) => drain(createElementStream(options), chunks),
  partial: (chunks, options) => {
    const stream = createPartialStream({ ...options, emit: 'both' });
    return drain(stream, chunks, () => ({ final: stream.value, complete: stream.complete }));
  },
};

/**
 * What must not depend on chunking: everything, except for a partial stream the updates
 * themselves (one per chunk that changed the value) and their counts.
 */
function chunkingInvariant(engine: Engine, run: Run): unknown {
  if (engine !== 'partial') return run;
  const { updates: _updates, changes: _changes, ...stats } = run.stats as Record<string, unknown>;
  return { final: run.outputs.at(-1), diagnostics: run.diagnostics, stats };
}

/** The JSON Schema runs of each case, by chunking: computed once, shared by the four vendors. */
const referenceRuns = new WeakMap<Case, Map<string, Run>>();

/**
 * Runs case `c` with the JSON Schema and with `options` (the vendor's) whole, at every byte
 * chunk size 1..64 and at arbitrary split points (empty chunks, splits inside UTF-8
 * sequences), and calls `check` with both runs of each chunking. Every chunking of either run
 * must agree with the same schema's whole run (`chunkingInvariant`).
 */
async function everySplit(
  c: Case,
  options: Record<string, unknown>,
  check: (run: Run, reference: Run, label: string) => void,
): Promise<void> {
  const bytes = new TextEncoder().encode(c.text);
  const run = runners[c.engine];
  const referenceOptions = optionsFor(c, c.family.json);
  let references = referenceRuns.get(c);
  if (references === undefined) {
    references = new Map();
    referenceRuns.set(c, references);
  }
  const cache = references;
  const reference = async (chunks: readonly Uint8Array[], label: string | undefined): Promise<Run> => {
    const known = label === undefined ? undefined : cache.get(label);
    if (known !== undefined) return known;
    const result = await run(chunks, referenceOptions);
    if (label !== undefined) cache.set(label, result);
    return result;
  };
  const whole = { reference: await reference([bytes], 'whole'), run: await run([bytes], options) };
  check(whole.run, whole.reference, 'whole');
  const one = async (chunks: readonly Uint8Array[], label: string, cached: boolean) => {
    const pair = { reference: await reference(chunks, cached ? label : undefined), run: await run(chunks, options) };
    check(pair.run, pair.reference, label);
    expect(chunkingInvariant(c.engine, pair.reference), label).toEqual(chunkingInvariant(c.engine, whole.reference));
    expect(chunkingInvariant(c.engine, pair.run), label).toEqual(chunkingInvariant(c.engine, whole.run));
  };
  for (let size = 1; size <= 64; size++) await one(chunkBytes(bytes, size), `${size}-byte chunks`, true);
  await fc.assert(
    fc.asyncProperty(splitPoints(bytes.length), (points) =>
      one(splitAt(bytes, points), `split at ${points.join(', ')}`, false),
    ),
    { numRuns: SPLIT_RUNS },
  );
}

/** A diagnostic without what may differ between vendors: the wording (message, error keywords and messages). */
function shape(d: Diagnostic) {
  const { message: _message, errors, ...rest } = d;
  return errors === undefined ? rest : { ...rest, errorPaths: errors.map((e) => e.path) };
}

function withoutBranch<T>(item: T): T {
  if (typeof item !== 'object' || item === null || !('branch' in item)) return item;
  const { branch: _branch, ...rest } = item as T & { branch: unknown };
  return rest as T;
}

interface Case {
  readonly engine: Engine;
  readonly name: string;
  readonly text: string;
  readonly family: SchemaFamily;
  /** Options besides the schema. */
  readonly options?: Record<string, unknown>;
  /** The option the schema goes in: `schema` (default) or `elementSchema`. */
  readonly schemaOption?: 'schema' | 'elementSchema';
  /** (5) The error paths every vendor gives for the complete document, where a union sits below its root. */
  readonly documentErrorPaths?: readonly string[];
}

function optionsFor(c: Case, schema: SchemaInput): Record<string, unknown> {
  return { ...c.options, [c.schemaOption ?? 'schema']: schema };
}

/** A subtree check of the partial builder (as opposed to the check of the complete document). */
const isSubtreeCheck = (d: Diagnostic): boolean => d.reason === 'schema' && d.message.startsWith('the value at ');

/** A prefix-check violation of the partial builder: no completion of the prefix can match. */
const isViolation = (d: Diagnostic): boolean => d.reason === 'violation';

/** A value that names no branch, reported by the dispatch of a JSON Schema (or of a vendor's export). */
const dispatchProperty = (d: Diagnostic): string | undefined => {
  const error = d.errors?.[0];
  return error?.keyword === 'discriminator' ? String(error.params.property) : undefined;
};

type SchemaErrors = NonNullable<Diagnostic['errors']>;

/**
 * Whether ajv decides `d` by compiling a sub-schema of the vendor's JSON Schema export instead
 * of the vendor's own `validate`: elements found through a document schema, partial subtree checks.
 */
const decidedByExport = (c: Case, d: Diagnostic): boolean =>
  (c.engine === 'elements' && c.schemaOption === undefined) || (c.engine === 'partial' && isSubtreeCheck(d));

/**
 * The JSON Schema run as `vendor` must give it: the differences (n) listed at the top of this
 * file applied. Everything else — values and their placement, reasons, lines, offsets,
 * excerpts, branches, error paths, stats — must be identical.
 */
function expectedFor(c: Case, vendor: VendorSchema, reference: Run): Run {
  let { stats } = reference;
  let diagnostics = reference.diagnostics;
  /** Drops the diagnostics `drop` selects, and their count under `reason` in the stats. */
  const without = (reason: string, drop: (d: Diagnostic) => boolean) => {
    const dropped = diagnostics.filter(drop).length;
    diagnostics = diagnostics.filter((d) => !drop(d));
    const counts = (stats as { diagnostics: Record<string, number> }).diagnostics;
    const left = (counts[reason] ?? 0) - dropped;
    const { [reason]: _dropped, ...rest } = counts;
    stats = { ...(stats as object), diagnostics: left === 0 ? rest : { ...rest, [reason]: left } };
  };
  if (c.engine === 'partial' && (!vendor.exported || !vendor.linearExport)) {
    // (3) No export, or (7) one ajv refuses: no subtree checks, only the complete document's.
    without('schema', isSubtreeCheck);
  }
  if (c.engine === 'partial' && !vendor.exported) {
    // (9) No export: no prefix checks, so no violations (an export ajv refuses still serves them).
    without('violation', isViolation);
  }
  diagnostics = diagnostics.map((d) => {
    let errors: SchemaErrors | undefined = d.errors;
    if (c.documentErrorPaths !== undefined && d.message.startsWith('the complete document')) {
      // (5) A union below the root: only the named branch's issues.
      errors = c.documentErrorPaths.map((path) => ({ path, keyword: '', message: '', schemaPath: '', params: {} }));
    }
    const property = dispatchProperty(d);
    if (!vendor.exported && property !== undefined) {
      // (2) A value that names no branch: the vendor's own issue, at the discriminator property.
      errors = errors?.map((e) => ({ ...e, path: `/${property}` }));
    }
    if (vendor.vendor === 'zod' && decidedByExport(c, d)) {
      // (6) zod exports z.iso.date() as a pattern and the `date` format: two errors, one path.
      errors = errors?.flatMap((e) => (e.keyword === 'format' && e.params.format === 'date' ? [e, e] : [e]));
    }
    const changed = errors === undefined ? d : { ...d, errors };
    // (1) No export, so no dispatch and no branch.
    return vendor.exported ? changed : withoutBranch(changed);
  });
  const outputs = vendor.exported ? reference.outputs : reference.outputs.map(withoutBranch);
  return { outputs, diagnostics, stats };
}

function compare(run: Run) {
  return { outputs: run.outputs, diagnostics: run.diagnostics.map(shape), stats: run.stats };
}

/** Every case, for the checks that the fixtures exercise what is compared. */
const allCases: Case[] = [];

function conformance(cases: readonly Case[]): void {
  allCases.push(...cases);
  describe.each(cases)('$engine: $name', (c) => {
    test.each(c.family.vendors)(
      '$name: the JSON Schema run’s values, diagnostics and stats, however chunked',
      async (vendor) => {
        if (c.engine === 'elements' && c.schemaOption === undefined && !vendor.exported) {
          // (4) A document schema without an export: no element schema to find in it.
          expect(() => createElementStream(optionsFor(c, vendor.schema))).toThrow(ConfigurationError);
          expect(() => createElementStream(optionsFor(c, vendor.schema))).toThrow(/no JSON Schema export/);
          return;
        }
        if (c.engine === 'elements' && c.schemaOption === undefined && !vendor.linearExport) {
          // (7) An export with a pattern ajv refuses: the element schema found in it does not compile.
          expect(() => createElementStream(optionsFor(c, vendor.schema))).toThrow(ConfigurationError);
          expect(() => createElementStream(optionsFor(c, vendor.schema))).toThrow(/needs a linear-time regular/);
          return;
        }
        await everySplit(c, optionsFor(c, vendor.schema), (run, reference, label) => {
          expect(compare(run), label).toEqual(compare(expectedFor(c, vendor, reference)));
        });
      },
    );
  });
}

/**
 * The JSONL answers with a schema, each with its schema, an array of it, and (5) the paths of
 * the vendors' issues for that array (a union below the root): the named branch's only.
 */
const jsonlAnswers: readonly { name: string; family: SchemaFamily; list: ArrayFamilies; arrayErrorPaths: string[] }[] =
  [
    {
      name: 'definition-relationship',
      family: definitionRelationship,
      list: arrayOf(definitionRelationship),
      arrayErrorPaths: ['/4/object', '/5/type'],
    },
    {
      name: 'ontology',
      family: ontology,
      list: arrayOf(ontology),
      arrayErrorPaths: ['/6/since', '/8/id', '/9/source', '/10/type'],
    },
    {
      name: 'schema-id-breaks-discriminator-dispatch',
      family: calendarAction,
      list: arrayOf(calendarAction),
      arrayErrorPaths: ['/2/date', '/3/action'],
    },
  ];

describe('JSONL answers', () => {
  conformance(
    jsonlAnswers.map(({ name, family }) => ({ engine: 'JSONL', name, text: fixture(`answers/${name}.txt`), family })),
  );
});

describe('salvage', () => {
  conformance([
    {
      engine: 'salvage',
      name: 'preamble-then-answer-schema',
      text: fixture('salvage/preamble-then-answer-schema.txt'),
      family: calendarAction,
    },
    ...jsonlAnswers.map(
      ({ name, family }): Case => ({
        engine: 'salvage',
        name: `answers/${name}`,
        text: fixture(`answers/${name}.txt`),
        family,
      }),
    ),
  ]);
});

/** A JSONL answer's JSON lines as the elements of one array, in a fence after a line of prose. */
function asArray(name: string): string {
  const lines = fixture(`answers/${name}.txt`)
    .split('\n')
    .filter((line) => line.startsWith('{'));
  return `Here they are:\n\`\`\`json\n[\n  ${lines.join(',\n  ')}\n]\n\`\`\`\n`;
}

describe('elements', () => {
  conformance([
    ...(['extract-definitions', 'extract-relationships'] as const).flatMap((name): Case[] => {
      const families = name === 'extract-definitions' ? extractDefinitions : extractRelationships;
      const text = fixture(`contracts/answers/${name}.txt`);
      return [
        {
          engine: 'elements',
          name: `${name} with elementSchema`,
          text,
          family: families.element,
          schemaOption: 'elementSchema',
        },
        { engine: 'elements', name: `${name} with the document schema`, text, family: families.document },
      ];
    }),
    ...(['section-text', 'section-text-mismatch'] as const).map(
      (name): Case => ({
        engine: 'elements',
        name: `${name}: $.sections with the document schema`,
        text: fixture(`contracts/answers/${name}.txt`),
        family: sections,
        options: { path: '$.sections' },
      }),
    ),
    ...jsonlAnswers.flatMap(({ name, family, list }): Case[] => [
      {
        engine: 'elements',
        name: `answers/${name} as an array, elementSchema`,
        text: asArray(name),
        family,
        schemaOption: 'elementSchema',
      },
      {
        engine: 'elements',
        name: `answers/${name} as an array, document schema`,
        text: asArray(name),
        family: list.document,
      },
    ]),
  ]);
});

describe('partial', () => {
  conformance([
    ...(['section-text', 'section-text-mismatch'] as const).map(
      (name): Case => ({
        engine: 'partial',
        name,
        text: fixture(`contracts/answers/${name}.txt`),
        family: sections,
      }),
    ),
    ...(['extract-definitions', 'extract-relationships'] as const).map(
      (name): Case => ({
        engine: 'partial',
        name,
        text: fixture(`contracts/answers/${name}.txt`),
        family: (name === 'extract-definitions' ? extractDefinitions : extractRelationships).document,
      }),
    ),
    ...jsonlAnswers.map(
      ({ name, list, arrayErrorPaths }): Case => ({
        engine: 'partial',
        name: `answers/${name} as an array`,
        text: asArray(name),
        family: list.document,
        documentErrorPaths: arrayErrorPaths,
      }),
    ),
    // Every JSON line of the JSONL answers as a document of its own: a oneOf root, so the
    // complete document is checked (with its branch) and no subtree is.
    ...jsonlAnswers.flatMap(({ name, family }) =>
      fixture(`answers/${name}.txt`)
        .split('\n')
        .flatMap((line, i): Case[] =>
          line.startsWith('{')
            ? [{ engine: 'partial', name: `answers/${name} line ${i + 1}`, text: line, family }]
            : [],
        ),
    ),
  ]);
});

/** One run of `text`, whole. */
const whole = (engine: Engine, text: string, options: Record<string, unknown>): Promise<Run> =>
  runners[engine]([new TextEncoder().encode(text)], options);

const vendorNamed = (family: SchemaFamily, name: string): VendorSchema => {
  const vendor = family.vendors.find((entry) => entry.name === name);
  if (vendor === undefined) throw new Error(`no vendor ${name}`);
  return vendor;
};
const ZOD = 'zod 4';
const VALIBOT_EXPORTED = 'valibot 1 with toStandardJsonSchema';
const VALIBOT = 'valibot 1 (no JSON Schema export)';
const ARKTYPE = 'arktype 2';

describe('the cases exercise what is compared', () => {
  test('each vendor schema has a JSON Schema export exactly when it says so', () => {
    const families = new Set(allCases.map((c) => c.family));
    expect(families.size).toBeGreaterThanOrEqual(10);
    for (const family of families) {
      expect(family.vendors.map((vendor) => vendor.name)).toEqual([ZOD, VALIBOT_EXPORTED, VALIBOT, ARKTYPE]);
      for (const vendor of family.vendors) {
        const standard = vendor.schema['~standard'] as { jsonSchema?: { input?: unknown } };
        expect(typeof standard.jsonSchema?.input === 'function', vendor.name).toBe(vendor.exported);
      }
    }
  });

  test('branches, both kinds of dispatch failure, subtree checks and element failures all occur', async () => {
    const seen = new Set<string>();
    for (const c of allCases) {
      const run = await whole(c.engine, c.text, optionsFor(c, c.family.json));
      if (run.outputs.some((output) => typeof output === 'object' && output !== null && 'branch' in output)) {
        seen.add(`${c.engine}: a value with a branch`);
      }
      for (const d of run.diagnostics) {
        if (c.engine === 'partial' && isViolation(d)) seen.add('partial: a violation');
        if (d.reason !== 'schema') continue;
        seen.add(`${c.engine}: a schema diagnostic${d.branch === undefined ? '' : ' with a branch'}`);
        const property = dispatchProperty(d);
        if (property !== undefined)
          seen.add(`${c.engine}: ${d.errors?.[0]?.path === '' ? 'missing' : 'unknown'} discriminator`);
        if (c.engine === 'partial')
          seen.add(isSubtreeCheck(d) ? 'partial: a subtree check' : 'partial: a document check');
      }
    }
    expect([...seen].sort()).toEqual(
      [
        'JSONL: a value with a branch',
        'JSONL: a schema diagnostic',
        'JSONL: a schema diagnostic with a branch',
        'JSONL: unknown discriminator',
        'salvage: a value with a branch',
        'salvage: a schema diagnostic',
        'salvage: a schema diagnostic with a branch',
        'salvage: missing discriminator',
        'salvage: unknown discriminator',
        'elements: a value with a branch',
        'elements: a schema diagnostic',
        'elements: a schema diagnostic with a branch',
        'elements: unknown discriminator',
        'partial: a schema diagnostic',
        'partial: a schema diagnostic with a branch',
        'partial: unknown discriminator',
        'partial: a subtree check',
        'partial: a document check',
        'partial: a violation',
      ].sort(),
    );
  });
});

describe('the listed differences, each asserted where it shows', () => {
  const definitionRelationshipAnswer = fixture('answers/definition-relationship.txt');

  test('(1) valibot without an export: no branch on values or diagnostics', async () => {
    const reference = await whole('JSONL', definitionRelationshipAnswer, { schema: definitionRelationship.json });
    const run = await whole('JSONL', definitionRelationshipAnswer, {
      schema: vendorNamed(definitionRelationship, VALIBOT).schema,
    });
    expect(reference.outputs.map((r) => (r as { branch?: string }).branch)).toEqual([
      'definition',
      'definition',
      'relationship',
      'relationship',
      'definition',
    ]);
    expect(run.outputs.every((r) => !Object.hasOwn(r as object, 'branch'))).toBe(true);
    expect(reference.diagnostics.find((d) => d.line === 7)?.branch).toBe('relationship');
    expect(run.diagnostics.find((d) => d.line === 7)?.branch).toBeUndefined();
  });

  test('(2) a value that names no branch: the vendor’s issue at the discriminator property without an export', async () => {
    const text = fixture('salvage/preamble-then-answer-schema.txt');
    const reference = await whole('salvage', text, { schema: calendarAction.json });
    // {"id": 3} has no "action": dispatch reports it at the root, in the same words for every exporting vendor.
    expect(reference.diagnostics.map((d) => d.errors?.map((e) => [e.path, e.keyword]))).toEqual([
      [['', 'discriminator']],
    ]);
    for (const vendor of calendarAction.vendors) {
      const run = await whole('salvage', text, { schema: vendor.schema });
      if (vendor.vendor === 'arktype') {
        // (8) arktype's export lists the branches in its own (sorted) order: so does the message.
        expect(run.diagnostics.map((d) => d.message)).toEqual([
          'missing discriminator "action"; expected one of "cancel", "create"',
        ]);
        expect(reference.diagnostics.map((d) => d.message)).toEqual([
          'missing discriminator "action"; expected one of "create", "cancel"',
        ]);
      } else if (vendor.exported) {
        expect(
          run.diagnostics.map((d) => d.message),
          vendor.name,
        ).toEqual(reference.diagnostics.map((d) => d.message));
      } else {
        expect(run.diagnostics.map((d) => d.errors?.map((e) => e.path))).toEqual([['/action']]);
        expect(run.diagnostics[0]?.message).not.toContain('discriminator');
      }
    }
  });

  test('(3) partial: subtree checks only with a JSON Schema export', async () => {
    const text = fixture('contracts/answers/section-text-mismatch.txt');
    const checks = (run: Run) =>
      run.diagnostics.map((d) => (isViolation(d) ? 'violation' : isSubtreeCheck(d) ? 'subtree' : 'document'));
    const reference = await whole('partial', text, { schema: sections.json });
    expect(checks(reference)).toEqual(['violation', 'subtree', 'subtree', 'subtree', 'document']);
    for (const vendor of sections.vendors) {
      const run = await whole('partial', text, { schema: vendor.schema });
      // (9) without an export there are no prefix checks either: the complete document only.
      expect(checks(run), vendor.name).toEqual(vendor.exported ? checks(reference) : ['document']);
    }
  });

  test('(9) partial: prefix checks only with a JSON Schema export, the same violations for every export', async () => {
    const list = arrayOf(calendarAction).document;
    const text = asArray('schema-id-breaks-discriminator-dispatch');
    const violations = async (schema: SchemaInput) =>
      (await whole('partial', text, { schema })).diagnostics
        .filter(isViolation)
        .map((d) => [d.path, d.rule, d.offset, d.excerpt]);
    // "reschedule" names no branch: certain at its "r", which neither "create" nor "cancel" starts with.
    const reference = await violations(list.json);
    expect(reference).toEqual([['/3/action', 'discriminator', text.indexOf('"reschedule"') + 1, '"r"']]);
    for (const vendor of list.vendors) {
      // arktype's export, refused by ajv for subtree checks (7), still serves the prefix checks.
      expect(await violations(vendor.schema), vendor.name).toEqual(vendor.exported ? reference : []);
    }
    const valibot = await whole('partial', text, { schema: vendorNamed(list, VALIBOT).schema });
    expect(valibot.stats).toMatchObject({ diagnostics: { schema: 1 } });
    expect((valibot.stats as { diagnostics: object }).diagnostics).not.toHaveProperty('violation');
  });

  test('(4) elements: a document schema without an export is refused at creation', () => {
    for (const family of [extractDefinitions.document, sections]) {
      expect(() => createElementStream({ schema: vendorNamed(family, VALIBOT).schema })).toThrow(
        /offers no JSON Schema export/,
      );
      expect(() =>
        createElementStream({ elementSchema: vendorNamed(extractDefinitions.element, VALIBOT).schema }),
      ).not.toThrow();
    }
  });

  test('(5) a union below the root: ajv reports every branch, a vendor the named branch only', async () => {
    const list = arrayOf(ontology).document;
    const text = asArray('ontology');
    const document = (run: Run) =>
      run.diagnostics.find((d) => d.message.startsWith('the complete document'))?.errors?.map((e) => e.path) ?? [];
    const reference = document(await whole('partial', text, { schema: list.json }));
    expect(reference.length).toBeGreaterThan(20);
    for (const vendor of list.vendors) {
      const paths = document(await whole('partial', text, { schema: vendor.schema }));
      expect(paths, vendor.name).toEqual(['/6/since', '/8/id', '/9/source', '/10/type']);
      // ajv's list is capped (MAX_SCHEMA_ERRORS, then one errors-omitted entry): each vendor path
      // is among the errors kept, or at an element after the last one kept.
      const lastKept = Number(reference.at(-2)?.split('/')[1]);
      for (const path of paths) {
        expect(reference.includes(path) || Number(path.split('/')[1]) >= lastKept, `${vendor.name}: ${path}`).toBe(
          true,
        );
      }
    }
  });

  test('(6) zod’s export of z.iso.date(): a pattern and the date format, so ajv reports two errors', async () => {
    const list = arrayOf(calendarAction).document;
    const text = asArray('schema-id-breaks-discriminator-dispatch');
    const errors = (run: Run) => run.diagnostics.map((d) => d.errors?.map((e) => `${e.path} ${e.keyword}`));
    const reference = await whole('elements', text, { schema: list.json });
    const zod = await whole('elements', text, { schema: vendorNamed(list, ZOD).schema });
    const valibot = await whole('elements', text, { schema: vendorNamed(list, VALIBOT_EXPORTED).schema });
    expect(errors(reference)).toEqual([['/date format'], ['/action discriminator']]);
    expect(errors(valibot)).toEqual(errors(reference));
    expect(errors(zod)).toEqual([['/date pattern', '/date format'], ['/action discriminator']]);
  });

  test('(7) arktype’s string.date.iso exports a lookahead: no elements through it, no partial subtree checks', async () => {
    const list = arrayOf(calendarAction).document;
    const arktype = vendorNamed(list, ARKTYPE);
    expect(() => createElementStream({ schema: arktype.schema })).toThrow(/needs a linear-time regular expression/);
    const text = asArray('schema-id-breaks-discriminator-dispatch');
    const subtreeChecks = async (schema: SchemaInput) =>
      (await whole('partial', text, { schema })).diagnostics.filter(isSubtreeCheck).length;
    expect(await subtreeChecks(list.json)).toBeGreaterThan(0);
    expect(await subtreeChecks(vendorNamed(list, ZOD).schema)).toBeGreaterThan(0);
    expect(await subtreeChecks(arktype.schema)).toBe(0);
    // Its own validate still decides the element and the document: the date check is arktype's.
    const elements = await whole('elements', text, { elementSchema: vendorNamed(calendarAction, ARKTYPE).schema });
    expect(elements.diagnostics.map((d) => d.errors?.map((e) => e.path))).toEqual([['/date'], ['/action']]);
  });
});
