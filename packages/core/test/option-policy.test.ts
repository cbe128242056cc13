/**
 * The option policy of the core factories (options/option-checks.ts, each factory's list beside its options type): a misspelt option name is a
 * configuration error that names the closest known one, an enumerated option's value outside its
 * set is one that lists the allowed values and quotes what it got (a string as a JSON string),
 * and valid configurations still construct.
 */

import {
  ConfigurationError,
  createElementScanner,
  createJsonlDecoder,
  createPartialBuilder,
  createProviderDecoder,
  createSalvageScanner,
  createToolCallDecoder,
  extractAllJson,
  extractJson,
  openAICompatible,
  parseJsonl,
  structuredOutput,
} from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { closestName } from '@llmjson/core/internal';
import { describe, expect, it } from 'vitest';

const sink = { value() {}, diagnostic() {}, update() {}, text() {} };

/** The ConfigurationError `make` throws (the test fails when it throws nothing or something else). */
function configurationError(make: () => unknown): ConfigurationError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error('expected a ConfigurationError, and nothing was thrown');
}

describe('unknown option names', () => {
  const cases: [string, () => unknown, string][] = [
    ['createJsonlDecoder', () => createJsonlDecoder({ schemas: {} } as never, sink), 'schema'],
    ['parseJsonl', () => parseJsonl('{}', { maxLinelength: 10 } as never), 'maxLineLength'],
    ['createPartialBuilder', () => createPartialBuilder({ snapshot: true } as never, sink), 'snapshots'],
    ['createElementScanner', () => createElementScanner({ elementschema: {} } as never, sink), 'elementSchema'],
    ['createSalvageScanner', () => createSalvageScanner({ stirct: true } as never, sink), 'strict'],
    ['createProviderDecoder', () => createProviderDecoder({ input: 'openai', imput: 'x' } as never, sink), 'input'],
    ['createToolCallDecoder', () => createToolCallDecoder({ input: 'openai', tool: {} } as never, sink), 'tools'],
    ['extractAllJson', () => extractAllJson('{}', { onDiagnostics: () => {} } as never), 'onDiagnostic'],
    ['extractJson', () => extractJson('{}', { repiar: true } as never), 'repair'],
    ['openAICompatible', () => openAICompatible({ baseUrl: 'http://localhost', model: 'm' } as never), 'baseURL'],
  ];
  it.each(cases)('%s refuses a misspelt name and suggests the known one', (factory, make, suggestion) => {
    const error = configurationError(make);
    expect(error.code).toBe('OPTION_INVALID');
    expect(error.message).toContain(factory === 'parseJsonl' ? 'createJsonlDecoder' : factory);
    expect(error.message).toContain(`did you mean ${suggestion}?`);
  });

  it('names no suggestion when nothing is close', () => {
    const error = configurationError(() => createJsonlDecoder({ frobnicate: 1 } as never, sink));
    expect(error.message).toContain('"frobnicate"');
    expect(error.message).not.toContain('did you mean');
  });

  it('refuses options that are not an object', () => {
    expect(configurationError(() => createJsonlDecoder('strict' as never, sink)).code).toBe('OPTION_INVALID');
  });

  it('suggests by edit distance, case and swapped neighbours included', () => {
    expect(closestName('onDiagnostics', ['onDiagnostic', 'onWarning'])).toBe('onDiagnostic');
    expect(closestName('maxlinelength', ['maxLineLength', 'maxDepth'])).toBe('maxLineLength');
    expect(closestName('scheam', ['schema', 'strict'])).toBe('schema');
    expect(closestName('xyz', ['schema', 'strict'])).toBeUndefined();
  });
});

describe('enumerated option values', () => {
  const cases: [string, () => unknown, string][] = [
    ['nullValue (JSONL)', () => createJsonlDecoder({ nullValue: 'reprot' } as never, sink), `'value' or 'report'`],
    ['nullValue (partial)', () => createPartialBuilder({ nullValue: 'reprot' } as never, sink), `'value' or 'report'`],
    ['strict (JSONL)', () => createJsonlDecoder({ strict: 'yes' } as never, sink), 'true or false'],
    ['reportSkipped', () => createJsonlDecoder({ reportSkipped: 'yes' } as never, sink), 'true or false'],
    ['strict (salvage)', () => createSalvageScanner({ strict: 'yes' } as never, sink), 'true or false'],
    ['repair', () => extractJson('{}', { repair: 'yes' } as never), 'true or false'],
    [
      'prefixCheck (tool calls)',
      () => createToolCallDecoder({ input: 'openai', prefixCheck: 'yes' } as never, sink),
      'true or false',
    ],
    [
      'snapshots (tool calls)',
      () => createToolCallDecoder({ input: 'openai', snapshots: 'yes' } as never, sink),
      `true, false or 'paced'`,
    ],
    [
      'jsonMode',
      () => openAICompatible({ baseURL: 'http://localhost', model: 'm', jsonMode: 'yes' } as never),
      `'off', 'json' or 'schema'`,
    ],
  ];
  it.each(cases)('%s outside its set is OPTION_INVALID naming the allowed values', (_name, make, allowed) => {
    const error = configurationError(make);
    expect(error.code).toBe('OPTION_INVALID');
    expect(error.message).toContain(allowed);
    expect(error.message).toMatch(/got "(reprot|yes)"$/);
  });

  it('quotes a string as a JSON string, so that "10" is not read as the number 10', () => {
    const error = configurationError(() => createJsonlDecoder({ maxLineLength: '10' } as never, sink));
    expect(error.message).toContain('got "10"');
    const input = configurationError(() => createProviderDecoder({ input: 'opneai' } as never, sink));
    expect(input.message).toContain('got "opneai"');
  });

  it('an unknown responseFormat rejects the request', async () => {
    const call = openAICompatible({
      baseURL: 'http://localhost',
      model: 'm',
      fetch: () => Promise.reject(new Error('not reached')),
    });
    await expect(call({ prompt: 'p', responseFormat: 'jsn' } as never)).rejects.toThrow(/responseFormat must be/);
  });

  it('a misspelt request field rejects the request before anything is sent, suggesting the known one', async () => {
    let fetched = 0;
    const call = openAICompatible({
      baseURL: 'http://localhost',
      model: 'm',
      fetch: () => {
        fetched++;
        return Promise.reject(new Error('not reached'));
      },
    });
    const refused = call({ prompt: 'p', sytem: 'be brief' } as never);
    await expect(refused).rejects.toBeInstanceOf(ConfigurationError);
    await expect(refused).rejects.toThrow(/openAICompatible request has no option "sytem": did you mean system\?/);
    expect(fetched).toBe(0);
    // The prompt runner's own fields pass: the request reaches fetch (which fails here).
    await expect(call({ prompt: 'p', id: 'greet', attempt: 1, responseType: 'json' })).rejects.toThrow('not reached');
    expect(fetched).toBe(1);
  });

  it("structured output's own options are checked by name, as the function and as openAICompatible's option", () => {
    const direct = configurationError(() =>
      structuredOutput('openai-chat', { type: 'object' }, { stirct: true } as never),
    );
    expect(direct.code).toBe('OPTION_INVALID');
    expect(direct.message).toContain('did you mean strict?');
    const nested = configurationError(() =>
      openAICompatible({ baseURL: 'http://localhost', model: 'm', structuredOutput: { nmae: 'x' } } as never),
    );
    expect(nested.message).toContain('did you mean name?');
  });
});

describe('valid configurations still construct', () => {
  it('every core factory takes its documented options', () => {
    const schema = { type: 'object' };
    expect(() =>
      createJsonlDecoder(
        {
          schema,
          compileJsonSchema: compileSchema,
          strict: true,
          reportSkipped: false,
          nullValue: 'report',
          prefixCheck: false,
          maxLineLength: 10,
          maxDepth: 5,
        },
        sink,
      ),
    ).not.toThrow();
    expect(() =>
      createPartialBuilder({ schema, compileJsonSchema: compileSchema, snapshots: 'paced', updateOn: 'values' }, sink),
    ).not.toThrow();
    expect(() => createElementScanner({ path: '$.items', maxElementLength: 10 }, sink)).not.toThrow();
    expect(() => createSalvageScanner({ strict: false, maxCandidateLength: 10 }, sink)).not.toThrow();
    expect(() =>
      createToolCallDecoder({ input: 'openai', tools: {}, snapshots: 'paced', keepToolArguments: true }, sink),
    ).not.toThrow();
    expect(extractJson('x {"a":1} y', { repair: false, onDiagnostic() {} })?.value).toEqual({ a: 1 });
    expect(() => openAICompatible({ baseURL: 'http://localhost', model: 'm', jsonMode: 'schema' })).not.toThrow();
  });
});
