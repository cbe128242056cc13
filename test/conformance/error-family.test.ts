/**
 * One error family (issue 16 item 8): every error llmjson throws on purpose is an LlmjsonError
 * with a `code`, whichever package raised it, and the class exported by every package is the
 * same one, so one `instanceof` check catches them all.
 */

import * as contracts from '@llmjson/contracts';
import * as core from '@llmjson/core';
import * as node from '@llmjson/node';
import * as web from '@llmjson/web';
import { describe, expect, expectTypeOf, test } from 'vitest';

describe('LlmjsonError', () => {
  test('is one class, exported by every package', () => {
    expect(node.LlmjsonError).toBe(core.LlmjsonError);
    expect(web.LlmjsonError).toBe(core.LlmjsonError);
    expect(contracts.LlmjsonError).toBe(core.LlmjsonError);
  });

  test('a broken configuration: ConfigurationError with its code, from every factory', () => {
    const error = (() => {
      try {
        node.createJsonlStream({ schema: { type: 'nope' } as never });
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(core.LlmjsonError);
    expect(error).toBeInstanceOf(core.ConfigurationError);
    expect(error).toMatchObject({ name: 'ConfigurationError', code: 'SCHEMA_INVALID' });
  });

  test('fail fast: ContractViolationError, code CONTRACT_VALIDATION_FAILED', async () => {
    const stream = node.createJsonlStream({
      schema: { type: 'object', properties: { a: { type: 'integer' } } },
      failFast: true,
    });
    const failed = stream.toArray();
    stream.end('{"a":"x"}\n');
    const error = await failed.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(core.LlmjsonError);
    expect(error).toMatchObject({ name: 'ContractViolationError', code: 'CONTRACT_VALIDATION_FAILED' });
  });

  test('contracts: ContractConfigurationError and ContractValidationError', async () => {
    // A json prompt with no schema: the setup is wrong, before any model is called.
    const configuration = await Promise.resolve()
      .then(() =>
        contracts
          .createPromptManager({ prompts: { p: { prompt: 'x', 'response-type': 'json' } } })
          .invoke('p', {}, () => '{}'),
      )
      .catch((e: unknown) => e);
    expect(configuration).toBeInstanceOf(contracts.ContractConfigurationError);
    expect(configuration).toBeInstanceOf(core.LlmjsonError);
    expect((configuration as core.LlmjsonError).code).toBe('SCHEMA_REF_MISSING');

    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const manager = contracts.createPromptManager({ prompts: { q: { prompt: 'x', 'response-type': 'json', schema } } });
    const failure = await manager.invoke('q', {}, () => '{"n":"one"}').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(contracts.ContractValidationError);
    expect(failure).toBeInstanceOf(core.LlmjsonError);
    expect((failure as contracts.ContractValidationError).code).toBe('CONTRACT_VALIDATION_FAILED');
  });

  test('node: ProviderHttpError (PROVIDER_HTTP_ERROR, status, body) and ProviderTimeoutError', () => {
    const http = new node.ProviderHttpError(503, 'overloaded', 'HTTP 503');
    expect(http).toBeInstanceOf(core.LlmjsonError);
    expect([http.code, http.status, http.body, http.name]).toEqual([
      'PROVIDER_HTTP_ERROR',
      503,
      'overloaded',
      'ProviderHttpError',
    ]);
    const timeout = new node.ProviderTimeoutError('IDLE_TIMEOUT', 1000, 'idle');
    expect(timeout).toBeInstanceOf(core.LlmjsonError);
    expect([timeout.code, timeout.timeoutMs]).toEqual(['IDLE_TIMEOUT', 1000]);
  });
});

describe('one LlmResult', () => {
  test('core, node and contracts name one type; openAICompatible is a model function the prompt runner takes', () => {
    expectTypeOf<node.LlmResult>().toEqualTypeOf<core.LlmResult>();
    expectTypeOf<contracts.LlmResult>().toEqualTypeOf<core.LlmResult>();
    const llm: contracts.Llm = node.openAICompatible({ baseURL: 'http://127.0.0.1:9/v1', model: 'm' });
    expect(typeof llm).toBe('function');
    // Its answer narrows the output (an async iterable of strings) and keeps the shared shape.
    expectTypeOf<Awaited<ReturnType<typeof llm>>>().toMatchTypeOf<contracts.LlmOutput | core.LlmResult>();
    expectTypeOf<node.OpenAICompatibleResult>().toMatchTypeOf<core.LlmResult>();
    expectTypeOf<node.OpenAICompatibleResult['output']>().toEqualTypeOf<AsyncIterable<string>>();
  });
});
