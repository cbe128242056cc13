/**
 * What the LangChain parser tests share: a chain of a prompt, LangChain's own fake streaming
 * chat model (`FakeStreamingChatModel`, whose chunks are given exactly) and a parser; its
 * streamed chunks collected; and a check that a partial value could still grow into the final
 * one (strings only grow, arrays only append, keys only arrive, scalars appear complete).
 */

import { AIMessageChunk } from '@langchain/core/messages';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import type { Runnable } from '@langchain/core/runnables';
import { FakeStreamingChatModel } from '@langchain/core/utils/testing';

/** The fake model answering with exactly these chunks of text. */
export function fakeModel(chunks: readonly string[]): FakeStreamingChatModel {
  return new FakeStreamingChatModel({ chunks: chunks.map((content) => new AIMessageChunk({ content })) });
}

/** prompt → fake model (answering `chunks`) → parser. */
export function chain<O>(chunks: readonly string[], parser: Runnable<never, O>): Runnable<Record<string, string>, O> {
  const prompt = ChatPromptTemplate.fromTemplate('Answer about {topic} in JSON.');
  return prompt.pipe(fakeModel(chunks)).pipe(parser as Runnable<unknown, O>);
}

/** Every chunk `.stream()` yields, in order. */
export async function streamed<O>(runnable: Runnable<Record<string, string>, O>): Promise<O[]> {
  const out: O[] = [];
  for await (const chunk of await runnable.stream({ topic: 'planets' })) out.push(chunk);
  return out;
}

/** What `fn` rejects with (fails the test when it does not reject). */
export async function rejection(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, got none');
}

/** Whether `partial` is a state that `whole` grows from (the partial-value invariants). */
export function growsInto(partial: unknown, whole: unknown): boolean {
  if (typeof partial === 'string') return typeof whole === 'string' && whole.startsWith(partial);
  if (Array.isArray(partial)) {
    if (!Array.isArray(whole) || partial.length > whole.length) return false;
    return partial.every((item, i) => growsInto(item, whole[i]));
  }
  if (typeof partial === 'object' && partial !== null) {
    if (typeof whole !== 'object' || whole === null || Array.isArray(whole)) return false;
    return Object.entries(partial).every(
      ([key, value]) => Object.hasOwn(whole, key) && growsInto(value, (whole as Record<string, unknown>)[key]),
    );
  }
  return Object.is(partial, whole);
}
