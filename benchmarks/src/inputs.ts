/**
 * Deterministic benchmark inputs: model answers shaped like the ones llmjson decodes, and the
 * token chunks a model server would send them in.
 *
 * Every generator is seeded, so two runs (and the tests) see the same text. Text mixes ASCII
 * with two- to four-byte UTF-8 characters so byte tokens split characters, as real ones do.
 */

import { readFileSync } from 'node:fs';
import type { JsonSchema } from '@llmjson/core';

/** Small, fast, seeded PRNG (mulberry32): the same seed gives the same inputs on every run. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'light',
  'water',
  'carbon',
  'sugar',
  'oxygen',
  'leaf',
  'cell',
  'energy',
  'membrane',
  'enzyme',
  'protein',
  'pigment',
  'réaction',
  'Photosynthèse',
  'Zellkern',
  'ミトコンドリア',
  '叶绿体',
  '⚡',
  '🌱',
  'a',
  'the',
  'of',
  'into',
  'through',
];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}

function phrase(next: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(pick(next, WORDS));
  return out.join(' ');
}

/** The schema of the demo answer: a `oneOf` of `definition` and `relationship` objects. */
export function extractionSchema(): JsonSchema {
  const url = new URL('../../fixtures/schemas/definition-relationship.schema.json', import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as JsonSchema;
}

/** One object the extraction schema accepts. */
export function extractionObject(next: () => number): Record<string, unknown> {
  if (next() < 0.5) {
    return { type: 'definition', entity: phrase(next, 2), definition: phrase(next, 8 + Math.floor(next() * 16)) };
  }
  const object: Record<string, unknown> = {
    type: 'relationship',
    subject: phrase(next, 2),
    predicate: pick(next, ['enables', 'produces', 'consumes', 'contains', 'admits']),
    object: phrase(next, 3),
  };
  if (next() < 0.5) object['object-entity'] = next() < 0.5;
  return object;
}

/** The same object broken so that the extraction schema rejects it (the demo's `"object": 42`). */
export function invalidExtractionObject(next: () => number): Record<string, unknown> {
  const object = extractionObject(next);
  if (object.type === 'definition') return { ...object, definition: '' };
  return { ...object, object: Math.floor(next() * 100) };
}

export interface JsonlAnswer {
  /** The whole answer: one JSON object per line, each line ending with `\n`. */
  readonly text: string;
  /** The lines, without line breaks (the input of the `JSON.parse` ceiling). */
  readonly lines: readonly string[];
  /** Every object, in order. */
  readonly objects: readonly unknown[];
  /** The objects the schema accepts, in order. */
  readonly valid: readonly unknown[];
}

/** Makes the objects of an answer: ones its schema accepts, and ones it rejects. */
export interface ObjectMaker {
  valid(next: () => number): Record<string, unknown>;
  invalid(next: () => number): Record<string, unknown>;
}

export const extractionObjects: ObjectMaker = { valid: extractionObject, invalid: invalidExtractionObject };

/**
 * A `oneOf` of `branches` event objects, each pinned by `"type": "event_<i>"`, the shape of a
 * tool-call or UI-event union. Every branch is strict (`additionalProperties: false`).
 */
export function unionSchema(branches: number): JsonSchema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    oneOf: Array.from({ length: branches }, (_, i) => ({
      type: 'object',
      properties: {
        type: { const: `event_${i}` },
        id: { type: 'integer', minimum: 0 },
        name: { type: 'string', minLength: 1 },
        [`detail_${i}`]: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 8 },
      },
      required: ['type', 'id', 'name', `detail_${i}`],
      additionalProperties: false,
    })),
  };
}

/** Objects for `unionSchema(branches)`; invalid ones have a negative `id`. */
export function unionObjects(branches: number): ObjectMaker {
  const valid = (next: () => number): Record<string, unknown> => {
    const i = Math.floor(next() * branches);
    return {
      type: `event_${i}`,
      id: Math.floor(next() * 1e6),
      name: phrase(next, 2),
      [`detail_${i}`]: phrase(next, 6 + Math.floor(next() * 10)),
      tags: Array.from({ length: Math.floor(next() * 4) }, () => pick(next, WORDS)),
    };
  };
  return { valid, invalid: (next) => ({ ...valid(next), id: -1 }) };
}

/**
 * A clean JSONL answer of about `chars` characters: objects from `maker`, one per line, a
 * fraction `invalidShare` of them rejected by the schema.
 */
export function jsonlAnswer(
  chars: number,
  seed: number,
  invalidShare = 0,
  maker: ObjectMaker = extractionObjects,
): JsonlAnswer {
  const next = random(seed);
  const lines: string[] = [];
  const objects: unknown[] = [];
  const valid: unknown[] = [];
  let length = 0;
  while (length < chars) {
    const bad = next() < invalidShare;
    const object = bad ? maker.invalid(next) : maker.valid(next);
    const line = JSON.stringify(object);
    lines.push(line);
    objects.push(object);
    if (!bad) valid.push(object);
    length += line.length + 1;
  }
  return { text: lines.map((l) => `${l}\n`).join(''), lines, objects, valid };
}

/**
 * The 3-branch discriminated union of the benchmark matrix: a knowledge-extraction answer whose
 * lines are a `definition`, a `relationship` or an `attribute`, pinned by `"type"`. Every branch
 * is strict and may carry an `evidence` array (quotes with their page), which is what makes a
 * line long.
 */
export function triadSchema(): JsonSchema {
  const evidence = {
    type: 'array',
    items: {
      type: 'object',
      properties: { quote: { type: 'string', minLength: 1 }, page: { type: 'integer', minimum: 1 } },
      required: ['quote', 'page'],
      additionalProperties: false,
    },
  };
  const text = { type: 'string', minLength: 1 };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Knowledge extraction: one definition, relationship or attribute per line',
    oneOf: [
      {
        type: 'object',
        properties: { type: { const: 'definition' }, entity: text, definition: text, evidence },
        required: ['type', 'entity', 'definition'],
        additionalProperties: false,
      },
      {
        type: 'object',
        properties: {
          type: { const: 'relationship' },
          subject: text,
          predicate: { enum: ['enables', 'produces', 'consumes', 'contains', 'admits'] },
          object: text,
          confidence: { type: 'number', minimum: 0, maximum: 1 },
          evidence,
        },
        required: ['type', 'subject', 'predicate', 'object'],
        additionalProperties: false,
      },
      {
        type: 'object',
        properties: {
          type: { const: 'attribute' },
          entity: text,
          name: text,
          value: { type: ['string', 'number', 'boolean'] },
          evidence,
        },
        required: ['type', 'entity', 'name', 'value'],
        additionalProperties: false,
      },
    ],
  };
}

/** Evidence items up to about `chars` characters (none when `chars` is 0). */
function evidence(next: () => number, chars: number): unknown[] {
  const items: unknown[] = [];
  for (let length = 0; length < chars; ) {
    const item = { quote: phrase(next, 8 + Math.floor(next() * 8)), page: 1 + Math.floor(next() * 400) };
    items.push(item);
    length += JSON.stringify(item).length + 1;
  }
  return items;
}

/**
 * Objects for `triadSchema()`: a third of each branch. `evidenceChars` sizes the evidence array
 * (0: short lines of about 200 bytes; 100 000: lines of about 100 KB). An invalid object breaks
 * one field of its branch (an empty entity, an unknown predicate, a confidence above 1).
 */
export function triadObjects(evidenceChars = 0): ObjectMaker {
  const valid = (next: () => number): Record<string, unknown> => {
    const r = next();
    let object: Record<string, unknown>;
    if (r < 1 / 3) {
      object = { type: 'definition', entity: phrase(next, 2), definition: phrase(next, 10 + Math.floor(next() * 10)) };
    } else if (r < 2 / 3) {
      object = {
        type: 'relationship',
        subject: phrase(next, 3),
        predicate: pick(next, ['enables', 'produces', 'consumes', 'contains', 'admits']),
        object: phrase(next, 4 + Math.floor(next() * 6)),
        confidence: Math.round(next() * 100) / 100,
      };
    } else {
      object = {
        type: 'attribute',
        entity: phrase(next, 2),
        name: pick(next, ['mass', 'colour', 'location', 'function', 'size']),
        value: next() < 0.5 ? phrase(next, 5 + Math.floor(next() * 8)) : Math.round(next() * 1e5) / 100,
      };
    }
    if (evidenceChars > 0) object.evidence = evidence(next, evidenceChars);
    else if (next() < 0.5) object.evidence = evidence(next, 1);
    return object;
  };
  const invalid = (next: () => number): Record<string, unknown> => {
    const object = valid(next);
    if (object.type === 'definition') return { ...object, entity: '' };
    if (object.type === 'relationship') return { ...object, confidence: 1.5 };
    return { ...object, value: null };
  };
  return { valid, invalid };
}

/** An answer of exactly `count` lines from `maker`, a fraction `invalidShare` of them invalid. */
export function jsonlLines(count: number, seed: number, maker: ObjectMaker, invalidShare = 0): JsonlAnswer {
  const next = random(seed);
  const lines: string[] = [];
  const objects: unknown[] = [];
  const valid: unknown[] = [];
  for (let i = 0; i < count; i++) {
    const bad = next() < invalidShare;
    const object = bad ? maker.invalid(next) : maker.valid(next);
    lines.push(JSON.stringify(object));
    objects.push(object);
    if (!bad) valid.push(object);
  }
  return { text: lines.map((l) => `${l}\n`).join(''), lines, objects, valid };
}

/** One JSONL line of at least `chars` characters: an object holding an array of small records. */
export function longLineObject(chars: number, seed: number): unknown {
  const next = random(seed);
  const items: unknown[] = [];
  let length = 0;
  while (length < chars) {
    const item = { id: items.length, text: phrase(next, 6), score: Math.round(next() * 1e6) / 1e3 };
    items.push(item);
    length += JSON.stringify(item).length + 1;
  }
  return { type: 'batch', items };
}

/**
 * Splits bytes into token-sized chunks the way the demo replays a recorded answer: 3, 4, 5,
 * 6, 3, … bytes (4.5 on average, about one model token), so some chunks end inside a UTF-8
 * character.
 */
export function byteTokens(bytes: Uint8Array): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let i = 0, n = 0; i < bytes.length; n++) {
    const size = 3 + (n % 4);
    chunks.push(bytes.subarray(i, i + size));
    i += size;
  }
  return chunks;
}

/** Splits bytes into fixed-size chunks (a file or socket read: 64 KiB by default). */
export function byteBlocks(bytes: Uint8Array, size = 65_536): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return chunks;
}

/**
 * The text chunks a byte stream decodes to, chunk for chunk (what a Node adapter hands to an
 * engine): a chunk ending inside a character gives up its partial bytes to the next one.
 */
export function decodeTokens(chunks: readonly Uint8Array[]): string[] {
  const decoder = new TextDecoder('utf-8');
  const out = chunks.map((c) => decoder.decode(c, { stream: true }));
  const rest = decoder.decode();
  if (rest !== '') out.push(rest);
  return out;
}

/** Token chunks of `text` as bytes and as the strings they decode to. */
export interface Tokens {
  readonly bytes: readonly Uint8Array[];
  readonly strings: readonly string[];
  /** Total input size in UTF-8 bytes. */
  readonly size: number;
}

export function tokens(text: string, split: (bytes: Uint8Array) => Uint8Array[] = byteTokens): Tokens {
  const encoded = new TextEncoder().encode(text);
  const bytes = split(encoded);
  return { bytes, strings: decodeTokens(bytes), size: encoded.length };
}

/** What a stream is written: strings or bytes. */
export type StreamChunk = string | Uint8Array;

/** An input chunked one way: what streams are written, and the text chunks engines get. */
export interface Chunked {
  /** The chunks written to a stream, in order. */
  readonly writes: readonly StreamChunk[];
  /** The same input as text chunks (what an adapter hands to an engine). */
  readonly strings: readonly string[];
  /** Total input size in UTF-8 bytes. */
  readonly size: number;
}

/**
 * Splits text into string chunks of `size` characters (code points, so a surrogate pair is
 * never split): a model server's text deltas, which arrive as strings, not bytes. Streams are
 * written these strings as they are.
 */
export function charChunks(text: string, size = 4): Chunked {
  const strings: string[] = [];
  let start = 0;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) i++;
    if (++count === size) {
      strings.push(text.slice(start, i + 1));
      start = i + 1;
      count = 0;
    }
  }
  if (start < text.length) strings.push(text.slice(start));
  return { writes: strings, strings, size: Buffer.byteLength(text) };
}

/**
 * `size`-byte chunks (a file read: 64 KiB by default): streams get the bytes (Buffers, as a
 * file or socket read yields them), engines the decoded text.
 */
export function blockChunks(text: string, size = 65_536): Chunked {
  const bytes = Buffer.from(text, 'utf8');
  const blocks = byteBlocks(bytes, size);
  return { writes: blocks, strings: decodeTokens(blocks), size: bytes.length };
}

/** How one planted object is written in a noisy answer. */
export type NoisyKind =
  /** One object per line, as asked. */
  | 'clean'
  /** `{…},`: the model wrote the array separator. */
  | 'trailing-comma'
  /** `JSON.stringify(object, null, 2)`: pretty-printed over several lines. */
  | 'pretty'
  /** Well-formed JSON that the schema rejects. */
  | 'invalid'
  /** Cut in the middle of the line; the next object starts on the next line. */
  | 'broken'
  /** The last line, cut at the token limit (no line break follows). */
  | 'cut';

export interface NoisyItem {
  readonly kind: NoisyKind;
  readonly object: unknown;
}

export interface NoisyAnswer {
  readonly text: string;
  /** `fenced`: prose, a ```jsonl fence, the lines, a closing fence, prose. `bare`: the lines only. */
  readonly framing: 'fenced' | 'bare';
  readonly items: readonly NoisyItem[];
}

const INTROS = [
  'Here are the extracted definitions and relationships:',
  'Sure! I found these entities in the passage.',
  'Below is the JSONL you asked for.',
];
const OUTROS = ['Let me know if you want more detail.', 'I hope this helps!', 'These cover the whole passage.'];

function pickKind(next: () => number): NoisyKind {
  const r = next();
  if (r < 0.7) return 'clean';
  if (r < 0.78) return 'trailing-comma';
  if (r < 0.85) return 'pretty';
  if (r < 0.93) return 'invalid';
  return 'broken';
}

/**
 * A model answer of about `objects` objects written the way models actually write JSONL:
 * mostly one object per line, with the slips listed in `NoisyKind`, usually inside a
 * fence between two lines of prose, and sometimes cut at the token limit.
 */
export function noisyAnswer(objects: number, seed: number): NoisyAnswer {
  const next = random(seed);
  const framing = next() < 0.75 ? 'fenced' : 'bare';
  const cut = next() < 0.25;
  const items: NoisyItem[] = [];
  const parts: string[] = [];
  if (framing === 'fenced') parts.push(`${pick(next, INTROS)}\n\n\`\`\`jsonl\n`);
  for (let i = 0; i < objects; i++) {
    const last = i === objects - 1;
    const kind: NoisyKind = last && cut ? 'cut' : pickKind(next);
    const object = kind === 'invalid' ? invalidExtractionObject(next) : extractionObject(next);
    const line = JSON.stringify(object);
    items.push({ kind, object });
    switch (kind) {
      case 'clean':
      case 'invalid':
        parts.push(`${line}\n`);
        break;
      case 'trailing-comma':
        parts.push(`${line},\n`);
        break;
      case 'pretty':
        parts.push(`${JSON.stringify(object, null, 2)}\n`);
        break;
      case 'broken':
        parts.push(`${line.slice(0, 10 + Math.floor(next() * (line.length - 20)))}\n`);
        break;
      case 'cut':
        parts.push(line.slice(0, 10 + Math.floor(next() * (line.length - 20))));
        break;
      default: {
        const never: never = kind;
        throw new Error(`unknown kind ${String(never)}`);
      }
    }
  }
  if (framing === 'fenced' && !cut) parts.push(`\`\`\`\n\n${pick(next, OUTROS)}\n`);
  return { text: parts.join(''), framing, items };
}

/** Prose around a model's JSON answer, and what a salvager must find in it. */
export interface ProseAnswer {
  /** Prose, then the answer in a ```json fence, then a closing sentence. */
  readonly text: string;
  /** The answer object inside the fence. */
  readonly answer: unknown;
  /** The `[n]` citations of the prose, as the JSON arrays they are, in order. */
  readonly citations: readonly unknown[];
}

/**
 * The object a model answers with: a few extraction records whose strings hold what the
 * prose holds (citations, stray brackets, quotes), so a salvager must not report a value
 * from inside a string.
 */
export function salvageAnswer(seed: number): Record<string, unknown> {
  const next = random(seed);
  return {
    summary: `${phrase(next, 12)} [1], see {${phrase(next, 2)}} and "${phrase(next, 3)}"`,
    items: Array.from({ length: 5 }, (_, i) => ({
      ...extractionObject(next),
      evidence: `${phrase(next, 8)} [${i + 2}] (${phrase(next, 2)}]`,
      page: 1 + Math.floor(next() * 400),
      score: Math.round(next() * 1000) / 1000,
    })),
    complete: true,
    notes: null,
  };
}

/**
 * A sentence of prose as models write it around an answer: citations `[n]`, apostrophes,
 * quoted phrases, a lone quote, and brackets that never close (`{light`, `[see`) or never
 * opened (`}`, `]`). Openers outnumber closers, so a bracket counter that starts at one of
 * them usually runs to the end of the text. Every bracket is followed by a letter or a
 * digit, and the only JSON in the prose is the citations.
 */
function proseSentence(next: () => number, citations: unknown[]): string {
  const parts: string[] = [];
  const words = 8 + Math.floor(next() * 12);
  for (let i = 0; i < words; i++) {
    const r = next();
    const word = pick(next, WORDS);
    if (r < 0.05) {
      const n = 1 + Math.floor(next() * 40);
      citations.push([n]);
      parts.push(`${word} [${n}]`);
    } else if (r < 0.08) parts.push(`{${word}`);
    else if (r < 0.11) parts.push(`[${word}`);
    else if (r < 0.125) parts.push(`${word}}`);
    else if (r < 0.14) parts.push(`${word}]`);
    else if (r < 0.17) parts.push(`${word}'s`);
    else if (r < 0.2) parts.push(`"${word} ${pick(next, WORDS)}"`);
    else if (r < 0.21) parts.push(`"${word}`);
    else parts.push(word);
  }
  const text = parts.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/**
 * About `bytes` UTF-8 bytes of seeded prose in paragraphs (see `proseSentence`), followed by
 * the `salvageAnswer` in a ```json fence and one closing sentence.
 */
export function proseThenFence(bytes: number, seed: number): ProseAnswer {
  const next = random(seed);
  const answer = salvageAnswer(7);
  const fenced = `\n\nHere is the answer:\n\n\`\`\`json\n${JSON.stringify(answer, null, 2)}\n\`\`\`\n\nLet me know if you need more.\n`;
  const budget = bytes - Buffer.byteLength(fenced);
  const citations: unknown[] = [];
  const paragraphs: string[] = [];
  let length = 0;
  while (length < budget) {
    const sentences: string[] = [];
    const count = 2 + Math.floor(next() * 5);
    for (let i = 0; i < count && length < budget; i++) {
      const sentence = proseSentence(next, citations);
      sentences.push(sentence);
      length += Buffer.byteLength(sentence) + 1;
    }
    paragraphs.push(sentences.join(' '));
    length += 1;
  }
  return { text: `${paragraphs.join('\n\n')}${fenced}`, answer, citations };
}

/** A valid, compact JSON document of at least `bytes` UTF-8 bytes: the `JSON.parse` ceiling's input. */
export function jsonDocument(bytes: number, seed: number): string {
  const next = random(seed);
  const items: unknown[] = [];
  let length = 12;
  while (length < bytes) {
    const item = { id: items.length, text: phrase(next, 6), score: Math.round(next() * 1e6) / 1e3 };
    items.push(item);
    length += Buffer.byteLength(JSON.stringify(item)) + 1;
  }
  return JSON.stringify({ items });
}

/** A whole answer that is one pretty-printed JSON document of about `bytes` bytes in a ```json fence. */
export function fencedDocument(bytes: number, seed: number): { readonly text: string; readonly document: unknown } {
  const next = random(seed);
  const records: unknown[] = [];
  const document = { type: 'extraction', records };
  // Each record is printed at depth 2 of the document; the wrapper adds about 60 bytes.
  for (let length = 60; length < bytes; ) {
    const record = { ...extractionObject(next), page: 1 + Math.floor(next() * 400) };
    records.push(record);
    length += Buffer.byteLength(JSON.stringify(record, null, 2)) + 6 * (Object.keys(record).length + 2);
  }
  return { text: `\`\`\`json\n${JSON.stringify(document, null, 2)}\n\`\`\`\n`, document };
}

/** A `{"title": …, "items": [ … ]}` document and the elements of its array. */
export interface ElementDocument {
  /** The whole document, compact JSON. */
  readonly text: string;
  /** The elements of `items`, in order. */
  readonly items: readonly unknown[];
}

/** A long string: sentences over several lines, with a quoted phrase now and then (escapes). */
function paragraph(next: () => number, words: number): string {
  const sentences: string[] = [];
  for (let left = words; left > 0; ) {
    const n = Math.min(left, 6 + Math.floor(next() * 10));
    left -= n;
    let sentence = phrase(next, n);
    if (next() < 0.2) sentence += ` "${phrase(next, 2)}"`;
    sentences.push(`${sentence}.`);
  }
  return sentences.join(next() < 0.3 ? '\n' : ' ');
}

/**
 * A compact JSON document of at least `bytes` UTF-8 bytes, `{"title": …, "items": [ … ]}`,
 * whose items are records as an extraction or search API returns them: long multi-line
 * strings with quotes (escapes), nested objects and arrays, numbers, booleans and nulls.
 */
export function elementDocument(bytes: number, seed: number): ElementDocument {
  const next = random(seed);
  const title = phrase(next, 8);
  const items: unknown[] = [];
  let length = Buffer.byteLength(JSON.stringify({ title, items }));
  while (length < bytes) {
    const item = {
      id: items.length,
      kind: pick(next, ['definition', 'relationship', 'attribute']),
      title: phrase(next, 3 + Math.floor(next() * 5)),
      body: paragraph(next, 40 + Math.floor(next() * 120)),
      source: {
        document: phrase(next, 3),
        page: 1 + Math.floor(next() * 400),
        authors: Array.from({ length: 1 + Math.floor(next() * 3) }, () => ({
          name: phrase(next, 2),
          affiliation: next() < 0.3 ? null : phrase(next, 3),
        })),
      },
      tags: Array.from({ length: Math.floor(next() * 5) }, () => pick(next, WORDS)),
      scores: { relevance: Math.round(next() * 1e4) / 1e4, confidence: Math.round(next() * 100) / 100 },
      verified: next() < 0.5,
      note: next() < 0.7 ? null : paragraph(next, 10 + Math.floor(next() * 20)),
    };
    items.push(item);
    length += Buffer.byteLength(JSON.stringify(item)) + 1;
  }
  return { text: JSON.stringify({ title, items }), items };
}

/**
 * A compact JSON document of about `bytes` UTF-8 bytes (the items that fit), `{"title": …, "summary": …,
 * "items": [ … ]}`, as a model writes a structured answer a UI shows while it streams: a long
 * summary (about a fifth of the document), then objects with long multi-line strings (quotes,
 * so escapes), a few short fields, numbers, booleans and nulls, in mixed-width UTF-8.
 */
export function partialDocument(bytes: number, seed: number): string {
  const next = random(seed);
  const title = phrase(next, 6);
  const summary = paragraph(next, Math.max(8, Math.round(bytes / 5 / 7)));
  const items: unknown[] = [];
  let length = Buffer.byteLength(JSON.stringify({ title, summary, items }));
  while (length < bytes) {
    const item = {
      id: items.length,
      heading: phrase(next, 3 + Math.floor(next() * 4)),
      text: paragraph(next, 20 + Math.floor(next() * 60)),
      detail: paragraph(next, 10 + Math.floor(next() * 30)),
      tags: Array.from({ length: Math.floor(next() * 4) }, () => pick(next, WORDS)),
      score: Math.round(next() * 1e4) / 1e4,
      done: next() < 0.5,
      note: next() < 0.7 ? null : phrase(next, 5),
    };
    const itemLength = Buffer.byteLength(JSON.stringify(item)) + 1;
    // At least one item; then none that would take the document past `bytes`.
    if (items.length > 0 && length + itemLength > bytes) break;
    items.push(item);
    length += itemLength;
  }
  return JSON.stringify({ title, summary, items });
}
