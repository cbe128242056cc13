/**
 * createToolCallStream (Web): a provider body in through `pipeThrough`, per tool call its
 * arguments as live partial values out; callbacks for the text; fail fast errors both sides.
 */

import { ContractViolationError, createToolCallStream, type Diagnostic, type ToolCallUpdate } from '@llmjson/web';
import { compileSchema } from '@llmjson/web/ajv';
import { describe, expect, test } from 'vitest';
import { chunkBytes, utf8 } from '../../../test/support/chunking.js';
import { readAll } from '../../../test/support/web.js';

const WEATHER = {
  type: 'object',
  properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] } },
  required: ['city'],
  additionalProperties: false,
};

const chunk = (delta: unknown, finish: string | null = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  model: 'gpt-test',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const data = (event: unknown) => `data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`;
const call = (args: string, id?: string, name?: string) =>
  chunk({
    tool_calls: [
      {
        index: 0,
        ...(id === undefined ? {} : { id }),
        function: { ...(name === undefined ? {} : { name }), arguments: args },
      },
    ],
  });

describe('createToolCallStream (Web)', () => {
  test('bytes split anywhere: the call streams as a partial value, then completes valid; text to onText', async () => {
    const body = [chunk({ content: 'On it. ' }), call('{"ci', 'call_1', 'weather'), call('ty":"Lima"}'), '[DONE]']
      .map(data)
      .join('');
    for (const size of [1, 3, 16, body.length]) {
      let text = '';
      const diagnostics: Diagnostic[] = [];
      const stream = createToolCallStream({
        input: 'auto',
        tools: { weather: WEATHER },
        compileJsonSchema: compileSchema,
        onText: (delta) => {
          text += delta;
        },
        onDiagnostic: (d) => diagnostics.push(d),
      });
      const updates: ToolCallUpdate[] = await readAll(
        ReadableStream.from(chunkBytes(utf8.encode(body), size)).pipeThrough(stream),
      );
      expect(diagnostics, `size ${size}`).toEqual([]);
      expect(text).toBe('On it. ');
      expect(updates.at(-1)).toMatchObject({ id: 'call_1', name: 'weather', value: { city: 'Lima' }, complete: true });
      expect(stream.calls).toMatchObject([{ id: 'call_1', complete: true }]);
      expect(stream.provider).toBe('openai');
    }
  });

  test('failFast: a violation in a call errors the stream with ContractViolationError', async () => {
    const body = [call('{"city":"Lima","unit":"k', 'call_1', 'weather'), call('elvin"}'), '[DONE]'].map(data).join('');
    const stream = createToolCallStream({
      input: 'openai',
      tools: { weather: WEATHER },
      compileJsonSchema: compileSchema,
      failFast: true,
    });
    const error = await readAll(ReadableStream.from([body]).pipeThrough(stream)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContractViolationError);
    expect((error as ContractViolationError).diagnostic).toMatchObject({
      reason: 'violation',
      path: '/unit',
      toolCall: { name: 'weather' },
    });
  });
});
