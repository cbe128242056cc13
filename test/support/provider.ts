/**
 * Runs the provider decoder over chunks and records everything it reports: every sink call in
 * order (what the chunking invariant compares), the text, reasoning and tool-argument pieces
 * joined, and the decoder's final properties. `decodeEverySplit` is the chunking invariant
 * every format test asserts: a body decoded whole, at every chunk size and split in two at
 * every position gives the same run.
 */
import {
  createProviderDecoder,
  type Diagnostic,
  type ProviderInput,
  type ProviderMetadata,
  type ProviderStats,
  type ToolCall,
  type Usage,
} from '@llmjson/core';
import { expect } from 'vitest';
import { chunkBytes, everyChunkSize } from './chunking.js';

export interface Run {
  /** Every sink call, in order: the chunking invariant compares these. */
  calls: unknown[][];
  text: string;
  reasoning: string;
  /** Argument pieces concatenated per call key. */
  tools: Record<string, string>;
  diagnostics: Diagnostic[];
  metadata: ProviderMetadata[];
  toolCalls: readonly ToolCall[];
  provider: string | undefined;
  model: string | undefined;
  finishReason: string | undefined;
  usage: Usage | undefined;
  error: unknown;
  stats: ProviderStats;
}

export function runProviderDecoder(
  chunks: readonly string[],
  input: ProviderInput = 'auto',
  maxEventLength?: number,
): Run {
  return record(input, maxEventLength, (decoder) => {
    for (const chunk of chunks) decoder.write(chunk);
  });
}

/**
 * Runs the decoder over byte chunks as the adapters do: each chunk offered to `bytes` first,
 * decoded as UTF-8 text only when handed back (a binary Bedrock body is taken as bytes).
 */
export function runProviderDecoderBytes(
  chunks: readonly Uint8Array[],
  input: ProviderInput = 'auto',
  maxEventLength?: number,
): Run {
  return record(input, maxEventLength, (decoder) => {
    const utf8 = new TextDecoder();
    for (const chunk of chunks) if (!decoder.bytes(chunk)) decoder.write(utf8.decode(chunk, { stream: true }));
    decoder.write(utf8.decode());
  });
}

/**
 * Decodes `body` whole, then at every chunk size from 1 to 64 and split in two at every
 * position (characters for text; bytes for a `Uint8Array`, each chunk offered to `bytes` first
 * as the adapters do, so splits fall inside UTF-8 sequences and binary frames), and asserts that
 * every run equals the whole one; returns the whole run.
 */
export function decodeEverySplit(
  body: string | Uint8Array,
  input: ProviderInput = 'auto',
  maxEventLength?: number,
): Run {
  if (typeof body === 'string') {
    const whole = runProviderDecoder([body], input, maxEventLength);
    for (const [label, chunks] of everyChunkSize(body)) {
      expect(runProviderDecoder(chunks, input, maxEventLength), label).toEqual(whole);
    }
    for (let at = 0; at <= body.length; at++) {
      const chunks = [body.slice(0, at), body.slice(at)];
      expect(runProviderDecoder(chunks, input, maxEventLength), `split at ${at}`).toEqual(whole);
    }
    return whole;
  }
  const whole = runProviderDecoderBytes([body], input, maxEventLength);
  for (let size = 1; size <= 64; size++) {
    expect(runProviderDecoderBytes(chunkBytes(body, size), input, maxEventLength), `size ${size}`).toEqual(whole);
  }
  for (let at = 0; at <= body.length; at++) {
    const chunks = [body.subarray(0, at), body.subarray(at)];
    expect(runProviderDecoderBytes(chunks, input, maxEventLength), `split at byte ${at}`).toEqual(whole);
  }
  return whole;
}

/** A decoder whose every sink call is recorded, fed by `feed`, then ended. */
function record(
  input: ProviderInput,
  maxEventLength: number | undefined,
  feed: (decoder: ReturnType<typeof createProviderDecoder>) => void,
): Run {
  const r: Run = {
    calls: [],
    text: '',
    reasoning: '',
    tools: {},
    diagnostics: [],
    metadata: [],
    toolCalls: [],
    provider: undefined,
    model: undefined,
    finishReason: undefined,
    usage: undefined,
    error: undefined,
    stats: { events: 0, ignoredEvents: 0, diagnostics: {} },
  };
  const decoder = createProviderDecoder(maxEventLength === undefined ? { input } : { input, maxEventLength }, {
    text(delta) {
      r.calls.push(['text', delta]);
      r.text += delta;
    },
    reasoning(delta) {
      r.calls.push(['reasoning', delta]);
      r.reasoning += delta;
    },
    toolArguments(key, delta, info) {
      r.calls.push(['toolArguments', key, delta, info]);
      r.tools[key] = (r.tools[key] ?? '') + delta;
    },
    metadata(m) {
      r.calls.push(['metadata', m]);
      r.metadata.push(m);
    },
    diagnostic(d) {
      r.calls.push(['diagnostic', d]);
      r.diagnostics.push(d);
    },
  });
  feed(decoder);
  decoder.end();
  return {
    ...r,
    toolCalls: decoder.toolCalls,
    provider: decoder.provider,
    model: decoder.model,
    finishReason: decoder.finishReason,
    usage: decoder.usage,
    error: decoder.error,
    stats: structuredClone(decoder.stats),
  };
}

/** An OpenAI-compatible chat completion stream whose content deltas spell `text`. */
export function openAISse(text: string, finishReason: string, piece = 9): string {
  const events: unknown[] = [];
  for (let i = 0; i < text.length; i += piece) {
    events.push({
      id: 'c1',
      object: 'chat.completion.chunk',
      model: 'qwen2.5-7b',
      choices: [{ index: 0, delta: { content: text.slice(i, i + piece) }, finish_reason: null }],
    });
  }
  events.push({ id: 'c1', model: 'qwen2.5-7b', choices: [{ index: 0, delta: {}, finish_reason: finishReason }] });
  events.push({
    id: 'c1',
    model: 'qwen2.5-7b',
    choices: [],
    usage: { prompt_tokens: 12, completion_tokens: 80, total_tokens: 92 },
  });
  return `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
}
