/**
 * Where a JSON answer's document starts for the failFast builder (document-start.ts): after
 * whitespace and the fence lines of core's one recogniser (decision 026), under any chunking.
 * The reference reading is line by line with core's `isFenceLine`, the whole-line form of the
 * same grammar; the examples through the prompt runner pin the answers where the runner's former
 * rule of its own (any line opening with three backticks, up to 200 characters) disagreed.
 */

import { test as fcTest } from '@fast-check/vitest';
import { createPromptManager, type Llm } from '@llmjson/contracts';
import { isFenceLine } from '@llmjson/core/internal';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { numRuns, splitAt } from '../../../test/support/chunking.js';
import { documentStart } from '../src/document-start.js';

/**
 * The offset of the document in a whole answer, line by line: whitespace is skipped, a line whose
 * first non-space is a marker must be a whole fence line (`isFenceLine`); `undefined` while the
 * answer ends before the document is decided, `-1` when the answer opens with anything else.
 */
function referenceStart(text: string): number | undefined {
  let lineStart = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '\n') {
      lineStart = ++i;
      continue;
    }
    if ('{["-0123456789'.includes(c)) return i;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c !== '`' && c !== '~') return -1;
    const end = text.indexOf('\n', i);
    // A line the answer ends in is undecided: nothing of it is read either way.
    if (end < 0) return undefined;
    if (!isFenceLine(text.slice(lineStart, end))) return -1;
    lineStart = i = end + 1;
  }
  return undefined;
}

const pieces = fc.constantFrom(
  '',
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\r',
  '\u00a0',
  ' '.repeat(16),
  ' '.repeat(17),
  '```',
  '````',
  '~~~',
  '``',
  '`',
  'json',
  'x'.repeat(33),
  ' JSONL ',
  ' {"a":1}',
  '{"a":1}',
  '[1,',
  '"s"',
  '-2',
  'Here:',
);

describe('documentStart', () => {
  fcTest.prop([fc.array(pieces, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 10 })], { numRuns: numRuns * 5 })(
    'reads from the document on, after whitespace and core fence lines, under any chunking',
    (parts, cuts) => {
      const text = parts.join('');
      const start = documentStart();
      const read = splitAt(text, cuts)
        .map((chunk) => start.read(chunk))
        .join('');
      const expected = referenceStart(text);
      if (expected === undefined || expected < 0) {
        expect(read).toBe('');
      } else {
        expect(read).toBe(text.slice(expected));
        expect(start.skipped).toBe(expected);
      }
    },
  );

  test.each([
    ['a backtick fence', '```json\n{"a":1}', 8],
    ['a tilde fence (decision 026)', '~~~json\n{"a":1}', 8],
    ['a fence line of CRLF text', '```json\r\n{"a":1}', 9],
    ['blank lines, then an indented fence', '\n \n   ```\n{"a":1}', 10],
    ['a fence line longer than 200 characters', `\`\`\`${' '.repeat(250)}json\n{"a":1}`, 258],
  ])('watches the document after %s', (_, text, offset) => {
    for (let size = 1; size <= text.length; size++) {
      const start = documentStart();
      let read = '';
      for (let i = 0; i < text.length; i += size) read += start.read(text.slice(i, i + size));
      expect(read).toBe(text.slice(offset));
      expect(start.skipped).toBe(offset);
    }
  });

  test.each([
    ['JSON on the fence line', '```json {"a":1}\n{"a":1}'],
    ['a fence indented by 17 spaces', `${' '.repeat(17)}\`\`\`json\n{"a":1}`],
    ['an info word of 33 characters', `\`\`\`${'j'.repeat(33)}\n{"a":1}`],
    ['two backticks', '``\n{"a":1}'],
    ['prose', 'Here it is:\n{"a":1}'],
  ])('does not watch an answer that opens with %s', (_, text) => {
    for (let size = 1; size <= text.length; size++) {
      const start = documentStart();
      let read = '';
      for (let i = 0; i < text.length; i += size) read += start.read(text.slice(i, i + size));
      expect(read).toBe('');
    }
  });
});

const ITEM = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' } },
  required: ['id', 'name'],
} as const;
const config = {
  prompts: {
    list: {
      prompt: 'List.',
      'response-type': 'json',
      schema: { type: 'object', properties: { items: { type: 'array', items: ITEM } } },
    },
  },
};
const items = (n: number) =>
  JSON.stringify({ items: Array.from({ length: n }, (_, i) => ({ id: i === 1 ? 'one' : i, name: `item ${i}` })) });

/** A model that answers `text` in 8-character chunks and counts the chunks it handed out. */
function model(text: string) {
  const served = { chunks: 0, total: Math.ceil(text.length / 8) };
  const llm: Llm = () =>
    (async function* () {
      for (let i = 0; i < text.length; i += 8) {
        served.chunks++;
        yield text.slice(i, i + 8);
      }
    })();
  return { llm, served };
}

describe('failFast reads the document after a fence line as core recognises it', () => {
  test('a tilde fence: the violation ends the call (formerly the answer was read whole)', async () => {
    const { llm, served } = model(`~~~json\n${items(200)}\n~~~`);
    const envelope = await createPromptManager(config, { failFast: true }).run('list', {}, llm);
    expect(envelope.error).toMatchObject({ detail: 'SCHEMA_VIOLATION', path: '/items/1/id', rule: 'type' });
    expect(served.chunks).toBeLessThan(served.total / 10);
  });

  test('a fence line of more than 200 characters: the violation ends the call (formerly not watched)', async () => {
    const { llm, served } = model(`\`\`\`json${' '.repeat(250)}\n${items(200)}\n\`\`\``);
    const envelope = await createPromptManager(config, { failFast: true }).run('list', {}, llm);
    expect(envelope.error).toMatchObject({ detail: 'SCHEMA_VIOLATION', path: '/items/1/id', rule: 'type' });
    expect(served.chunks).toBeLessThan(served.total / 10);
  });

  test('JSON on the opening line is no fence line: decided whole, as without failFast (formerly the line was skipped)', async () => {
    // Decided whole, the answer is the object on its first line (it fits the schema); the former
    // rule skipped that line and stopped at the second document, disagreeing with the decision.
    const text = `\`\`\`json {"note":"x"}\n${items(200)}\n\`\`\``;
    const { llm, served } = model(text);
    const envelope = await createPromptManager(config, { failFast: true }).run('list', {}, llm);
    const whole = await createPromptManager(config).run('list', {}, model(text).llm);
    expect(envelope.status).toBe('succeeded');
    expect(envelope.result.json).toEqual({ note: 'x' });
    expect(envelope.result).toEqual(whole.result);
    expect(served.chunks).toBe(served.total);
  });

  test('a fence indented by 17 spaces is no fence line: the answer is decided whole (formerly watched)', async () => {
    const { llm, served } = model(`${' '.repeat(17)}\`\`\`json\n${items(200)}\n\`\`\``);
    const envelope = await createPromptManager(config, { failFast: true }).run('list', {}, llm);
    expect(envelope.status).toBe('failed');
    expect(envelope.error?.detail).not.toBe('SCHEMA_VIOLATION');
    expect(served.chunks).toBe(served.total);
  });
});
