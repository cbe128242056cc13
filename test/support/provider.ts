/**
 * Runs the provider decoder over chunks and records everything it reports: every sink call in
 * order (what the chunking invariant compares), the text, reasoning and tool-argument pieces
 * joined, and the decoder's final properties.
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
  for (const chunk of chunks) decoder.write(chunk);
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
