/**
 * The option policy of the stream factories, Node and Web alike (decision 031): a misspelt option
 * name is OPTION_INVALID naming the closest known one (in JavaScript it would otherwise switch
 * validation off without a word); an enumerated value outside its set is OPTION_INVALID listing
 * the allowed values and quoting what it got; valid configurations still construct.
 */

import { ConfigurationError } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import * as node from '@llmjson/node';
import * as web from '@llmjson/web';
import { describe, expect, test } from 'vitest';

function configurationError(make: () => unknown): ConfigurationError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError, and nothing was thrown');
}

/** The factories of either package, called with options the tests build (`as never`). */
interface Factories {
  readonly createElementStream: (options?: object) => unknown;
  readonly createJsonlStream: (options?: object) => unknown;
  readonly createPartialStream: (options?: object) => unknown;
  readonly createProviderStream: (options?: object) => unknown;
  readonly createSalvageStream: (options?: object) => unknown;
  readonly createToolCallStream: (options?: object) => unknown;
}

const platforms: readonly (readonly [string, Factories])[] = [
  ['Node', node as unknown as Factories],
  ['Web', web as unknown as Factories],
];

describe.each(platforms)('%s streams', (_platform, streams) => {
  const misspelt: [string, () => unknown, string][] = [
    ['createJsonlStream', () => streams.createJsonlStream({ onDiagnostics: () => {} } as never), 'onDiagnostic'],
    ['createJsonlStream', () => streams.createJsonlStream({ schemas: {} } as never), 'schema'],
    ['createPartialStream', () => streams.createPartialStream({ emits: 'changes' } as never), 'emit'],
    ['createElementStream', () => streams.createElementStream({ elementSchemas: {} } as never), 'elementSchema'],
    ['createSalvageStream', () => streams.createSalvageStream({ failfast: true } as never), 'failFast'],
    [
      'createProviderStream',
      () => streams.createProviderStream({ input: 'openai', onReasonning: () => {} } as never),
      'onReasoning',
    ],
    ['createToolCallStream', () => streams.createToolCallStream({ input: 'openai', tool: {} } as never), 'tools'],
  ];
  test.each(misspelt)('%s refuses a misspelt option name, suggesting the known one', (factory, make, suggestion) => {
    const error = configurationError(make);
    expect(error.code).toBe('OPTION_INVALID');
    expect(error.message).toContain(factory);
    expect(error.message).toContain(`did you mean ${suggestion}?`);
  });

  test("createPartialStream({ emit: 'change' }) is refused, not read as 'both'", () => {
    const error = configurationError(() => streams.createPartialStream({ emit: 'change' } as never));
    expect(error.code).toBe('OPTION_INVALID');
    expect(error.message).toBe(`emit must be 'snapshots', 'changes' or 'both', got "change"`);
  });

  test('records and nullValue are checked; a string is quoted as a JSON string', () => {
    expect(configurationError(() => streams.createJsonlStream({ records: 'yes' } as never)).message).toBe(
      'records must be true or false, got "yes"',
    );
    expect(configurationError(() => streams.createJsonlStream({ nullValue: 'reprot' } as never)).message).toBe(
      `nullValue must be 'value' or 'report', got "reprot"`,
    );
    expect(
      configurationError(() => streams.createPartialStream({ maxSnapshotDelay: '10' } as never)).message,
    ).toContain('got "10"');
    expect(configurationError(() => streams.createJsonlStream({ highWaterMark: '10' } as never)).message).toContain(
      'got "10"',
    );
  });

  test('valid configurations construct as before', () => {
    const schema = { type: 'object' };
    const compileJsonSchema = compileSchema;
    expect(() =>
      streams.createJsonlStream({
        schema,
        compileJsonSchema,
        records: true,
        strict: false,
        nullValue: 'value',
        highWaterMark: 4,
        onDiagnostic() {},
      }),
    ).not.toThrow();
    for (const emit of ['snapshots', 'changes', 'both'] as const) {
      expect(() =>
        streams.createPartialStream({ schema, compileJsonSchema, emit, maxSnapshotDelay: 0, snapshots: true }),
      ).not.toThrow();
    }
    expect(() => streams.createElementStream({ path: '$.items', maxElementLength: 100 })).not.toThrow();
    expect(() => streams.createSalvageStream({ schema, compileJsonSchema, failFast: true })).not.toThrow();
    expect(() => streams.createProviderStream({ input: 'openai', onReasoning() {}, onMetadata() {} })).not.toThrow();
    expect(() => streams.createToolCallStream({ input: 'openai', tools: {}, onText() {} })).not.toThrow();
  });
});
