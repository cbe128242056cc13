/**
 * Partial values over recorded LLM provider streams (shared/corpora/recorded-streams/, from the
 * Vercel AI SDK fixtures): the JSON text of each tool call (or the JSON document streamed as
 * text) is re-assembled from the provider events and fed to the partial-value builder in the
 * provider's own pieces.
 *
 * - The final snapshot equals `JSON.parse` of the concatenated pieces, with no diagnostic.
 * - Each snapshot is extended by the next: strings only grow, arrays only append, scalars
 *   appear complete, complete elements keep their identity.
 * - Applying the change lists in order reproduces every snapshot.
 * - Cut off after any piece, the builder ends with `truncated` and a snapshot that the whole
 *   document extends; the recorded abnormal stream (a tool input cut off mid-string, then
 *   replayed) ends the same way.
 * - Empty tool arguments (a provider's way of saying `{}`) are no document: no snapshot and
 *   `truncated`; mapping them to `{}` is the provider adapter's job.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyChanges, type Change, createPartialBuilder, type Diagnostic } from '@llmjson/core';
import { describe, expect, test } from 'vitest';
import { corpus } from '../support/corpora.js';
import { grows } from '../support/partial.js';

interface IndexEntry {
  readonly file: string;
  readonly kind: string;
  readonly api: string;
  readonly derived_by_collector: {
    readonly text: { key: string; text: string; is_valid_json: boolean }[];
    readonly tool_arguments: { key: string; text: string; is_valid_json: boolean }[];
  };
}

type Event = Record<string, any>;

const index = corpus<IndexEntry[]>('recorded-streams/index.json', 'recorded provider streams');

/** The provider events of a fixture: one JSON per line, or raw SSE `data:` lines. */
function events(file: string): Event[] {
  const text = readFileSync(join(index.path, '..', file), 'utf8');
  return text
    .split('\n')
    .map((line) => (file.endsWith('.sse') ? (line.startsWith('data: ') ? line.slice(6) : '') : line).trim())
    .filter((line) => line !== '' && line !== '[DONE]')
    .map((line) => JSON.parse(line) as Event);
}

/** JSON pieces per tool call (or per text block for `json-text`), in order of first appearance. */
function pieces(entry: IndexEntry): string[][] {
  const groups = new Map<string, string[]>();
  const push = (key: string, piece: unknown) => {
    if (typeof piece !== 'string') return;
    const list = groups.get(key) ?? [];
    list.push(piece);
    groups.set(key, list);
  };
  let message = 0;
  for (const e of events(entry.file)) {
    if (entry.api.startsWith('Anthropic')) {
      if (e.type === 'message_start') message++;
      const key = `m${message}.b${e.index}`;
      // A tool block is a call even when no piece follows (empty arguments).
      if (e.type === 'content_block_start' && entry.kind !== 'json-text' && /tool_use$/.test(e.content_block?.type)) {
        groups.set(key, []);
      }
      if (e.type !== 'content_block_delta') continue;
      if (entry.kind === 'json-text' ? e.delta.type === 'text_delta' : e.delta.type === 'input_json_delta') {
        push(key, entry.kind === 'json-text' ? e.delta.text : e.delta.partial_json);
      }
    } else if (entry.api.startsWith('OpenAI Responses')) {
      if (e.type === 'response.function_call_arguments.delta') push(e.item_id, e.delta);
    } else if (entry.api.startsWith('OpenAI-compatible')) {
      for (const choice of e.choices ?? []) {
        for (const call of choice.delta?.tool_calls ?? [])
          push(`${choice.index}.${call.index}`, call.function?.arguments);
      }
    } else if (entry.api.startsWith('Cohere')) {
      if (e.type === 'tool-call-delta') push(`${e.index}`, e.delta?.message?.tool_calls?.function?.arguments);
    } else if (entry.api.startsWith('Amazon Bedrock')) {
      if (e.contentBlockDelta)
        push(`${e.contentBlockDelta.contentBlockIndex}`, e.contentBlockDelta.delta?.toolUse?.input);
    }
  }
  return [...groups.values()];
}

interface Run {
  snapshots: unknown[];
  changes: Change[][];
  diagnostics: Diagnostic[];
  final: unknown;
}

function build(chunks: readonly string[]): Run {
  const run: Run = { snapshots: [], changes: [], diagnostics: [], final: undefined };
  const builder = createPartialBuilder(
    {},
    {
      update: (value, list) => {
        run.snapshots.push(value);
        run.changes.push([...list]);
      },
      diagnostic: (d) => run.diagnostics.push(d),
    },
  );
  for (const chunk of chunks) builder.write(chunk);
  builder.end();
  run.final = builder.value;
  return run;
}

const entries = index.present
  ? index.load().filter((e) => ['json-text', 'tool-json', 'tool-json-abnormal'].includes(e.kind))
  : [];

describe.skipIf(!index.present)('recorded provider streams', () => {
  test('the corpus holds the JSON-carrying streams', () => {
    expect(entries.length).toBe(18);
  });

  describe.each(entries.map((e) => [e.file, e] as const))('%s', (_file, entry) => {
    const groups = pieces(entry);
    const expected =
      entry.kind === 'json-text'
        ? entry.derived_by_collector.text.filter((t) => t.is_valid_json)
        : entry.derived_by_collector.tool_arguments;

    test('the pieces re-assemble to the collector concatenations', () => {
      expect(groups.map((g) => g.join(''))).toEqual(expected.map((t) => t.text));
    });

    test.each(expected.map((t, i) => [t.key, i] as const))('%s', (_key, i) => {
      const chunks = groups[i] as string[];
      const { text, is_valid_json } = expected[i] as { text: string; is_valid_json: boolean };
      const run = build(chunks);
      let applied: unknown;
      run.changes.forEach((list, k) => {
        applied = applyChanges(applied, list);
        expect(applied).toEqual(run.snapshots[k]);
        if (k > 0) grows(run.snapshots[k - 1], run.snapshots[k], false);
      });
      if (text === '') {
        expect(run.snapshots).toEqual([]);
        expect(run.diagnostics.map((d) => d.reason)).toEqual(['truncated']);
        return;
      }
      if (!is_valid_json) {
        // Cut off mid-document: reported, and the snapshot is what arrived so far.
        expect(run.diagnostics.map((d) => d.reason)).toEqual(['truncated']);
        const replay = expected.find((t) => t.is_valid_json);
        expect(replay).toBeDefined();
        grows(run.final, JSON.parse((replay as { text: string }).text), false, false);
        return;
      }
      const whole = JSON.parse(text);
      expect(run.final).toEqual(whole);
      expect(run.diagnostics).toEqual([]);
      for (let cut = 1; cut < chunks.length; cut++) {
        const partial = build(chunks.slice(0, cut));
        if (chunks.slice(cut).join('').trim() === '') continue;
        expect(partial.diagnostics.map((d) => d.reason)).toEqual(['truncated']);
        if (partial.final !== undefined) grows(partial.final, whole, false, false);
      }
    });
  });
});
