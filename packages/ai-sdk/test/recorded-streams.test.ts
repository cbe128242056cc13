/**
 * The recorded provider streams of the shared corpus (Vercel AI SDK fixtures, recorded from the
 * real provider APIs) replayed through `streamText` with the AI SDK's mock model: each valid
 * JSON document a stream carries (a JSON answer streamed as text, or a tool call's arguments)
 * becomes the model's text, in the provider's own pieces. `object()` ends with the value the AI
 * SDK's `Output.object` gives for the same pieces, and its last partial is that value too.
 * Skipped, with a message, when the shared corpora folder is absent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Output, streamText } from 'ai';
import { expect, test } from 'vitest';
import { z } from 'zod';
import { corpus } from '../../../test/support/corpora.js';
import { object } from '../src/index.js';
import { collect, describeAi, mockModel } from './helpers.js';

interface Entry {
  readonly file: string;
  readonly kind: string;
  readonly api: string;
}

type Event = Record<string, any>;

const index = corpus<Entry[]>('recorded-streams/index.json', 'recorded provider streams (ai-sdk outputs)');

/** The provider's events: one JSON per line, or the `data:` lines of raw SSE. */
function events(file: string): Event[] {
  const lines = readFileSync(join(index.path, '..', file), 'utf8').split('\n');
  const payloads = file.endsWith('.sse') ? lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)) : lines;
  return payloads
    .map((l) => l.trim())
    .filter((l) => l !== '' && l !== '[DONE]')
    .map((l) => JSON.parse(l) as Event);
}

/** The JSON text pieces of each document a stream carries, keyed by block or call. */
function documents(entry: Entry): string[][] {
  const byKey = new Map<string, string[]>();
  const add = (key: string, piece: unknown) => {
    if (typeof piece === 'string' && piece !== '') byKey.set(key, [...(byKey.get(key) ?? []), piece]);
  };
  let message = 0;
  for (const e of events(entry.file)) {
    if (entry.api.startsWith('Anthropic')) {
      if (e.type === 'message_start') message++;
      if (e.type !== 'content_block_delta') continue;
      const piece = entry.kind === 'json-text' ? e.delta?.text : e.delta?.partial_json;
      add(`${message}.${e.index}`, piece);
    } else if (entry.api.startsWith('OpenAI Responses')) {
      if (e.type === 'response.function_call_arguments.delta') add(e.item_id, e.delta);
    } else if (entry.api.startsWith('OpenAI-compatible')) {
      for (const choice of e.choices ?? []) {
        for (const call of choice.delta?.tool_calls ?? [])
          add(`${choice.index}.${call.index}`, call.function?.arguments);
      }
    } else if (entry.api.startsWith('Cohere')) {
      if (e.type === 'tool-call-delta') add(String(e.index), e.delta?.message?.tool_calls?.function?.arguments);
    } else if (entry.api.startsWith('Amazon Bedrock')) {
      add(String(e.contentBlockDelta?.contentBlockIndex), e.contentBlockDelta?.delta?.toolUse?.input);
    }
  }
  return [...byKey.values()].filter((pieces) => {
    try {
      const value = JSON.parse(pieces.join(''));
      return typeof value === 'object' && value !== null;
    } catch {
      return false;
    }
  });
}

const cases = index.present
  ? index
      .load()
      .filter((e) => e.kind === 'json-text' || e.kind === 'tool-json')
      .flatMap((e) => documents(e).map((pieces, i) => [`${e.file} #${i}`, pieces] as const))
  : [];

async function run(output: unknown, pieces: readonly string[]) {
  const mock = mockModel(pieces);
  const result = streamText({ model: mock.model, prompt: 'p', output: output as never });
  const partials = await collect(result.partialOutputStream as AsyncIterable<unknown>);
  return { partials, final: await Promise.resolve(result.output as PromiseLike<unknown>) };
}

describeAi('object() over recorded provider streams (ai 7)', () => {
  test.skipIf(!index.present)('the corpus gives JSON documents from every provider family', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });

  test.skipIf(!index.present).each(cases)('%s', async (_name, pieces) => {
    const ours = await run(object({ schema: z.unknown() }), pieces);
    const theirs = await run(Output.object({ schema: z.unknown() }), pieces);
    const expected = JSON.parse(pieces.join(''));
    expect(ours.final).toEqual(expected);
    expect(ours.final).toEqual(theirs.final);
    expect(ours.partials.at(-1)).toEqual(expected);
  });
});
