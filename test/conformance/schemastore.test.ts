/**
 * The schemas users already have ("schemas as users have them"): every schema of SchemaStore's catalog
 * (`schemastore/schemastore.json` in the shared corpora: 450 schemas, draft-04 to 2020-12, each
 * with the valid and invalid files of the catalog's own tests) works in llmjson as it does in
 * plain ajv. The reference is plain ajv 8 with ajv-formats, `strict: false`, `allErrors: true`,
 * its class chosen by `$schema` (test/support/reference-ajv.ts), computed here.
 *
 * Per schema (a failure names it):
 * 1. Construction: `compileSchema` (`@llmjson/core/ajv`), `createJsonlStream` and
 *    `createPartialStream` accept the schema — unless `EXCEPTIONS` lists it, and then all three
 *    refuse it with a ConfigurationError (a stale entry fails). Two kinds, and only two, are
 *    legitimate (docs/decisions/029-schemastore-exceptions.md): a `$ref` to another file by URL
 *    that is not given (plain ajv refuses it too), and a pattern only a backtracking engine
 *    runs (lookaround, backreferences), refused by design (decision 013).
 * 2. Verdicts: on every valid and invalid file, `compileSchema`'s verdict and the Node JSONL
 *    stream's (the file as one line, validation and no coercion, the defaults) equal plain ajv's.
 * 3. Prefixes: a file plain ajv accepts raises no `violation` on any prefix, at chunk sizes 1,
 *    3 and 64, through the JSONL prefix check and the partial builder. Size 1 drives the core
 *    engines the streams wrap (`createJsonlDecoder` with `prefixCheck` and `linePrefixCheck`,
 *    `createPartialBuilder`, whose prefix check is on by default with a schema): through a Node
 *    stream it costs a stream write per character, over the budget of a CI run. Sizes 3 and 64
 *    go through the Node streams, with `prefixCheck: true`, `failFast: true` (which turns the
 *    prefix check on and makes any violation an 'error') and the partial stream with and
 *    without `failFast`. (`failFast` is adapter behaviour; the core engines report the same
 *    diagnostics either way.)
 * 4. Nothing throws: no exception and no 'error' after construction, on valid and invalid
 *    files alike, through the same engines and streams — except the documented one, the
 *    `ContractViolationError` with which `failFast` ends a stream on a file that fails.
 *
 * A file is serialised with `JSON.stringify` (one line, which is what the JSONL stream needs;
 * the corpus holds data, not the files' text).
 */
import {
  ConfigurationError,
  ContractViolationError,
  createJsonlDecoder,
  createPartialBuilder,
  type Diagnostic,
  type JsonSchema,
  linePrefixCheck,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { createJsonlStream, createPartialStream } from '@llmjson/node';
import { describe, expect, test } from 'vitest';
import { chunkText } from '../support/chunking.js';
import { corpus } from '../support/corpora.js';
import { type Reference, reference } from '../support/reference-ajv.js';

interface StoredFile {
  readonly file: string;
  readonly data: unknown;
}

interface StoredSchema {
  readonly schema: JsonSchema;
  readonly valid: readonly StoredFile[];
  readonly invalid: readonly StoredFile[];
}

const store = corpus<Record<string, StoredSchema>>('schemastore/schemastore.json', 'SchemaStore conformance');
const entries: [string, StoredSchema][] = store.present ? Object.entries(store.load()) : [];

type ExceptionKind = 'remote-reference' | 'backtracking-pattern';

/**
 * The schemas llmjson refuses, by name, with why. `remote-reference`: a `$ref` to another
 * SchemaStore file by (relative) URL, which is not given; plain ajv refuses the schema too, and
 * a user inlines the referenced definitions to compile it. `backtracking-pattern`: a `pattern`
 * or `patternProperties` key that needs a backtracking regex engine (lookbehind,
 * backreferences, a lookahead that is not a leading `^(?!…)`), refused because llmjson only runs
 * regexes in linear time (decision 013); the corpus has none left.
 * Kept in step with docs/decisions/029-schemastore-exceptions.md.
 */
const EXCEPTIONS: Readonly<Record<string, { readonly kind: ExceptionKind; readonly reason: string }>> = {
  bitrise: { kind: 'remote-reference', reason: '$ref bitrise-step.json' },
  'anywork-ac-1.0': { kind: 'remote-reference', reason: '$ref base.json#/definitions/path' },
  'azure-deviceupdate-import-manifest-4.0': {
    kind: 'remote-reference',
    reason: '$ref azure-deviceupdate-manifest-definitions-4.0.json',
  },
  'azure-deviceupdate-import-manifest-5.0': {
    kind: 'remote-reference',
    reason: '$ref azure-deviceupdate-manifest-definitions-5.0.json',
  },
  'azure-deviceupdate-update-manifest-4': {
    kind: 'remote-reference',
    reason: '$ref azure-deviceupdate-manifest-definitions-4.0.json',
  },
  'azure-deviceupdate-update-manifest-5': {
    kind: 'remote-reference',
    reason: '$ref azure-deviceupdate-manifest-definitions-5.0.json',
  },
  'azure-iot-edge-deployment-template-1.0': {
    kind: 'remote-reference',
    reason: '$ref azure-iot-edge-deployment-1.0.json',
  },
  'azure-iot-edge-deployment-template-2.0': {
    kind: 'remote-reference',
    reason: '$ref azure-iot-edge-deployment-2.0.json',
  },
  'azure-iot-edge-deployment-template-3.0': {
    kind: 'remote-reference',
    reason: '$ref azure-iot-edgeagent-deployment-1.1.json',
  },
  'azure-iot-edge-deployment-template-4.0': {
    kind: 'remote-reference',
    reason: '$ref azure-iot-edgeagent-deployment-1.1.json',
  },
  'cinnamon-spice.info': { kind: 'remote-reference', reason: '$ref base.json#/definitions/license' },
  circleciconfig: {
    kind: 'remote-reference',
    reason: '$ref https://raw.githubusercontent.com/CircleCI-Public/circleci-yaml-language-server/…/schema.json',
  },
  clasp: { kind: 'remote-reference', reason: '$ref base-04.json#/definitions/path' },
  compilerconfig: { kind: 'remote-reference', reason: '$ref compilerdefaults.json' },
  drone: { kind: 'remote-reference', reason: '$ref kubernetes-definitions.json' },
  eslintrc: { kind: 'remote-reference', reason: '$ref partial-eslint-plugins.json' },
  feed: { kind: 'remote-reference', reason: '$ref feed-1#/definitions/author' },
  'foundryvtt-module-manifest': { kind: 'remote-reference', reason: '$ref foundryvtt-base-package-manifest.json' },
  'foundryvtt-system-manifest': { kind: 'remote-reference', reason: '$ref foundryvtt-base-package-manifest.json' },
  'foundryvtt-world-manifest': { kind: 'remote-reference', reason: '$ref foundryvtt-base-package-manifest.json' },
  'grunt-clean-task': { kind: 'remote-reference', reason: '$ref grunt-task#/definitions/fileFormat' },
  'grunt-copy-task': { kind: 'remote-reference', reason: '$ref grunt-task#/additionalProperties' },
  'grunt-cssmin-task': { kind: 'remote-reference', reason: '$ref grunt-task#/additionalProperties' },
  'grunt-jshint-task': { kind: 'remote-reference', reason: '$ref grunt-task#/definitions/fileFormat' },
  hammerkit: { kind: 'remote-reference', reason: '$ref base.json#/definitions/path' },
  'minecraft-advancement': { kind: 'remote-reference', reason: '$ref base.json#/definitions/path' },
  'minecraft-pack-mcmeta': { kind: 'remote-reference', reason: '$ref partial-fusion-pack-metadata.json' },
  'minecraft-texture-mcmeta': { kind: 'remote-reference', reason: '$ref partial-fusion-texture-metadata.json' },
  mta: { kind: 'remote-reference', reason: '$ref mtad.json#/definitions/properties-metadata' },
  package: { kind: 'remote-reference', reason: '$ref eslintrc.json' },
  'pre-commit-config': { kind: 'remote-reference', reason: '$ref pre-commit-hooks.json#/definitions/file_types' },
  prisma: { kind: 'remote-reference', reason: '$ref base.json#/definitions/path' },
  pyproject: { kind: 'remote-reference', reason: '$ref partial-black.json' },
  'rc3-collection-0.0.3': { kind: 'remote-reference', reason: '$ref rc3-auth-0.0.3.json' },
  'rc3-folder-0.0.3': { kind: 'remote-reference', reason: '$ref rc3-auth-0.0.3.json' },
  'rc3-request-0.0.3': { kind: 'remote-reference', reason: '$ref rc3-auth-0.0.3.json' },
  'schema-org-action': { kind: 'remote-reference', reason: '$ref schema-org-thing.json' },
  'schema-org-contact-point': { kind: 'remote-reference', reason: '$ref schema-org-thing.json' },
  'schema-org-place': { kind: 'remote-reference', reason: '$ref schema-org-thing.json' },
  'schema-org-thing': { kind: 'remote-reference', reason: '$ref jsonld.json' },
  tsbuild: { kind: 'remote-reference', reason: '$ref https://json.schemastore.org/jsconfig.json' },
  tsoa: { kind: 'remote-reference', reason: '$ref tsconfig#/definitions/compilerOptionsDefinition' },
  'vs-2017.3.host': { kind: 'remote-reference', reason: '$ref ide.host.json' },
};

/** Chunk sizes of the prefix and never-throws checks; 1 runs on the core engines (see the contract). */
const STREAM_CHUNK_SIZES = [3, 64] as const;

/** The Node streams that take a schema and check prefixes, as the checks run them. */
const STREAMS = [
  {
    name: 'jsonl prefixCheck',
    failFast: false,
    create: (schema: JsonSchema) => createJsonlStream({ schema, prefixCheck: true, records: true }),
  },
  {
    name: 'jsonl failFast',
    failFast: true,
    create: (schema: JsonSchema) => createJsonlStream({ schema, failFast: true, records: true }),
  },
  {
    name: 'partial',
    failFast: false,
    create: (schema: JsonSchema) => createPartialStream({ schema, emit: 'changes' }),
  },
  {
    name: 'partial failFast',
    failFast: true,
    create: (schema: JsonSchema) => createPartialStream({ schema, emit: 'changes', failFast: true }),
  },
] as const;

interface StreamRun {
  readonly items: number;
  readonly diagnostics: Diagnostic[];
  /** What the stream errored with, or what a call on it threw; undefined when it ended cleanly. */
  readonly error: unknown;
}

/** Writes `chunks` to a Node Transform and ends it, gathering items, diagnostics and its error. */
async function runStream(stream: NodeJS.ReadWriteStream, chunks: readonly string[]): Promise<StreamRun> {
  const diagnostics: Diagnostic[] = [];
  let items = 0;
  stream.on('diagnostic', (d: Diagnostic) => diagnostics.push(d));
  stream.on('data', () => items++);
  const ended = new Promise<unknown>((resolve) => {
    stream.on('error', resolve);
    stream.on('end', () => resolve(undefined));
  });
  const destroyed = () => (stream as unknown as { destroyed: boolean }).destroyed;
  try {
    for (const chunk of chunks) {
      if (destroyed()) break;
      stream.write(chunk);
    }
    if (!destroyed()) stream.end();
  } catch (thrown) {
    return { items, diagnostics, error: thrown };
  }
  return { items, diagnostics, error: await ended };
}

interface CoreRun {
  readonly engine: string;
  readonly diagnostics: Diagnostic[];
  /** What a call on the engine threw; undefined when none did. */
  readonly thrown: unknown;
}

/** The core engines at one character per write (see the contract): what they report, or what they threw. */
function runCoreByCharacter(schema: JsonSchema, text: string): CoreRun[] {
  const engines = [
    {
      engine: 'core jsonl prefixCheck',
      input: `${text}\n`,
      create: (diagnostic: (d: Diagnostic) => void) =>
        createJsonlDecoder(
          { schema, compileJsonSchema: compileSchema, prefixCheck: true, prefixCheckWith: linePrefixCheck },
          { value() {}, diagnostic },
        ),
    },
    {
      engine: 'core partial',
      input: text,
      // No snapshots: one character per write would copy the open containers every time.
      create: (diagnostic: (d: Diagnostic) => void) =>
        createPartialBuilder(
          { schema, compileJsonSchema: compileSchema, snapshots: false, trackChanges: false, updateOn: 'values' },
          { update() {}, diagnostic },
        ),
    },
  ];
  return engines.map(({ engine, input, create }) => {
    const diagnostics: Diagnostic[] = [];
    try {
      const unit = create((d) => diagnostics.push(d));
      for (let i = 0; i < input.length; i++) unit.write(input.charAt(i));
      unit.end();
    } catch (thrown) {
      return { engine, diagnostics, thrown };
    }
    return { engine, diagnostics, thrown: undefined };
  });
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function firstViolation(diagnostics: readonly Diagnostic[]): string | undefined {
  const found = diagnostics.find((d) => d.reason === 'violation');
  return found === undefined ? undefined : `violation at ${found.path ?? ''} (${found.rule ?? ''}): ${found.message}`;
}

describe.skipIf(!store.present)('SchemaStore: the schemas users already have', () => {
  test('the corpus holds the catalog', () => {
    expect(entries.length).toBeGreaterThanOrEqual(450);
  });

  test('every exception names a schema of the corpus', () => {
    const names = new Set(entries.map(([name]) => name));
    expect(Object.keys(EXCEPTIONS).filter((name) => !names.has(name))).toEqual([]);
  });

  describe.each(entries)('%s', (name, stored) => {
    const { schema } = stored;
    const exception = Object.hasOwn(EXCEPTIONS, name) ? EXCEPTIONS[name] : undefined;
    let memo: Reference | undefined;
    const plain = (): Reference => {
      memo ??= reference(schema);
      return memo;
    };

    if (exception !== undefined) {
      test(`is refused with a ConfigurationError (${exception.kind}: ${exception.reason})`, () => {
        // Refused for the reason the table gives, not for another one that hides behind it.
        const because =
          exception.kind === 'remote-reference' ? /can't resolve reference/ : /needs a linear-time regular expression/;
        for (const construct of [
          () => compileSchema(schema),
          () => createJsonlStream({ schema }),
          () => createPartialStream({ schema }),
        ]) {
          expect(construct, 'stale exception: llmjson now accepts this schema').toThrow(ConfigurationError);
          expect(construct).toThrow(because);
        }
        if (exception.kind === 'remote-reference') expect(plain().compiled).toBe(false);
      });
      return;
    }

    test('compiles in plain ajv and in llmjson', () => {
      const ajv = plain();
      const ajvRefusal = ajv.compiled ? [] : [ajv.refusal];
      expect(ajvRefusal, `plain ajv refuses it (list it in EXCEPTIONS if it is a remote $ref): ${ajvRefusal}`).toEqual(
        [],
      );
      const refusals: string[] = [];
      for (const construct of [
        () => compileSchema(schema),
        () => createJsonlStream({ schema }),
        () => createPartialStream({ schema }),
      ]) {
        try {
          construct();
        } catch (error) {
          refusals.push(describeError(error));
        }
      }
      expect(refusals, `llmjson refuses a schema plain ajv compiles: ${refusals[0]}`).toEqual([]);
    });

    test('verdicts on every file equal plain ajv: compileSchema and the JSONL stream', async () => {
      const ajv = plain();
      if (!ajv.compiled) throw new Error(`plain ajv refuses the schema: ${ajv.refusal}`);
      const validator = compileSchema(schema);
      const mismatches: string[] = [];
      for (const { file, data } of [...stored.valid, ...stored.invalid]) {
        const expected = ajv.valid(data);
        const verdict = validator.validate(data).valid;
        if (verdict !== expected) mismatches.push(`${file}: compileSchema says ${verdict}, plain ajv ${expected}`);
        const run = await runStream(createJsonlStream({ schema, records: true }), [`${JSON.stringify(data)}\n`]);
        if (run.error !== undefined) mismatches.push(`${file}: jsonl stream errored: ${describeError(run.error)}`);
        else if ((run.items === 1) !== expected)
          mismatches.push(`${file}: jsonl stream emits ${run.items}, plain ajv says ${expected}`);
      }
      expect(mismatches, mismatches.slice(0, 20).join('\n')).toEqual([]);
    });

    test('no violation on any prefix of a valid file (sizes 1, 3, 64), nothing throws on any file', async () => {
      const ajv = plain();
      if (!ajv.compiled) throw new Error(`plain ajv refuses the schema: ${ajv.refusal}`);
      const problems: string[] = [];
      for (const { file, data } of [...stored.valid, ...stored.invalid]) {
        const text = JSON.stringify(data);
        const accepted = ajv.valid(data);
        for (const run of runCoreByCharacter(schema, text)) {
          const at = `${file} ${run.engine} size 1`;
          if (run.thrown !== undefined) problems.push(`${at}: threw ${describeError(run.thrown)}`);
          const violation = accepted ? firstViolation(run.diagnostics) : undefined;
          if (violation !== undefined) problems.push(`${at}: ${violation}`);
        }
        for (const size of STREAM_CHUNK_SIZES) {
          for (const { name: stream, failFast, create } of STREAMS) {
            const at = `${file} ${stream} size ${size}`;
            const input = stream.startsWith('jsonl') ? `${text}\n` : text;
            const run = await runStream(create(schema), chunkText(input, size));
            const allowed = failFast && !accepted && run.error instanceof ContractViolationError;
            if (run.error !== undefined && !allowed) problems.push(`${at}: errored ${describeError(run.error)}`);
            const violation = accepted ? firstViolation(run.diagnostics) : undefined;
            if (violation !== undefined) problems.push(`${at}: ${violation}`);
          }
        }
      }
      expect(problems, problems.slice(0, 20).join('\n')).toEqual([]);
    });
  });
});
