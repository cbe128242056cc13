/**
 * The option policy in contracts (decision 031): a misspelt option name of the prompt manager,
 * of its calls, of `parseJsonResponse`, `parseJsonlResponse`, `classifyResponse` and
 * `createSchemaRegistry` is
 * OPTION_INVALID naming the closest known name; `tolerate`, `failFast` and `salvage` outside their
 * sets are refused with the allowed values and what they got; valid options still work.
 */

import {
  classifyResponse,
  createPromptManager,
  createSchemaRegistry,
  parseJsonlResponse,
  parseJsonResponse,
} from '@llmjson/contracts';
import { ConfigurationError } from '@llmjson/core';
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

const CONFIG = {
  prompts: { hello: { prompt: 'Say {{name}}', 'response-type': 'json', schema: { type: 'object' } } },
};

describe('contracts options', () => {
  test.each([
    ['createPromptManager', () => createPromptManager(CONFIG, { onDiagnostics: () => {} } as never), 'onDiagnostic'],
    ['parseJsonResponse', () => parseJsonResponse('{}', { schemas: {} } as never), 'schema'],
    ['parseJsonlResponse', () => parseJsonlResponse('{}', { maxLinelength: 9 } as never), 'maxLineLength'],
    ['classifyResponse', () => classifyResponse('{}', { mode: 'json', salvge: true } as never), 'salvage'],
    ['createSchemaRegistry', () => createSchemaRegistry({ root: ['schemas'] } as never), 'roots'],
  ] as const)('%s refuses a misspelt name, suggesting the known one', (factory, make, suggestion) => {
    const error = configurationError(make);
    expect(error.code).toBe('OPTION_INVALID');
    expect(error.message).toContain(factory);
    expect(error.message).toContain(`did you mean ${suggestion}?`);
  });

  test('a call option misspelt is refused too', async () => {
    const manager = createPromptManager(CONFIG);
    await expect(manager.invoke('hello', { name: 'x' }, async () => '{}', { failfast: true } as never)).rejects.toThrow(
      /did you mean failFast\?/,
    );
  });

  test('enumerated values are checked and quoted', () => {
    expect(configurationError(() => parseJsonResponse('{}', { tolerate: 'nothing' } as never)).message).toBe(
      `tolerate must be 'fence-and-prose' or 'none', got "nothing"`,
    );
    expect(configurationError(() => createPromptManager(CONFIG, { failFast: 'yes' } as never)).message).toBe(
      'failFast must be true or false, got "yes"',
    );
    expect(configurationError(() => classifyResponse('{}', { mode: 'json', salvage: 'no' } as never)).message).toBe(
      'salvage must be true or false, got "no"',
    );
  });

  test('valid options work as before', async () => {
    expect(parseJsonResponse('x {"a": 1} y', { tolerate: 'fence-and-prose', maxDepth: 10 }).status).toBe('succeeded');
    expect(classifyResponse('{"a": 1}', { mode: 'json', salvage: true }).status).toBe('valid');
    const manager = createPromptManager(CONFIG, { failFast: false, retries: 0, tolerate: 'none' });
    expect(await manager.invoke('hello', { name: 'x' }, async () => '{"a": 1}', { retries: 0 })).toEqual({
      a: 1,
    });
  });
});
