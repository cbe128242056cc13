/**
 * `--coerce [rules]` on json, jsonl, salvage, elements, partial and run: values the schema
 * rejects as written are printed coerced; each repair is one stderr diagnostic line naming the
 * path and the rule, and is not a dropped value (`--strict` stays green); a bad rule name or a
 * missing schema is exit 2 before anything is read.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chunkText } from '../../../test/support/chunking.js';
import { REPOSITORY, runCli } from '../../../test/support/cli.js';
import { openAISse } from '../../../test/support/provider.js';

const ITEM = {
  type: 'object',
  properties: { n: { type: 'integer' }, color: { enum: ['red', 'blue'] }, ok: { type: 'boolean' } },
  required: ['n'],
};
const DOC = { type: 'object', properties: { title: { type: 'string' }, items: { type: 'array', items: ITEM } } };
const LIST = { type: 'array', items: ITEM };

const dir = mkdtempSync(join(tmpdir(), 'llmjson-coerce-'));
const itemSchema = join(dir, 'item.schema.json');
const docSchema = join(dir, 'doc.schema.json');
const listSchema = join(dir, 'list.schema.json');
writeFileSync(itemSchema, JSON.stringify(ITEM));
writeFileSync(docSchema, JSON.stringify(DOC));
writeFileSync(listSchema, JSON.stringify(LIST));

const RULES =
  'string-to-number, string-to-boolean, single-to-array, enum-case, float-to-integer, default, null-to-absent';

/** stderr's diagnostic lines (without the excerpt lines under them). */
const stderrLines = (err: string) => err.split('\n').filter((l) => l !== '' && !l.startsWith('    |'));

const JSONL = '{"n": "1", "color": "Red"}\n{"n": 2, "ok": "true"}\n{"n": "two"}\n{"n": 3}\n';

describe('--coerce in the stream modes', () => {
  test('jsonl: lines are printed coerced; each repair is a stderr line naming path and rule; exit 0', async () => {
    const r = await runCli(['jsonl', '--schema', itemSchema, '--coerce'], { stdin: chunkText(JSONL, 4) });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([{ n: 1, color: 'red' }, { n: 2, ok: true }, { n: 3 }]);
    expect(stderrLines(r.err)).toEqual([
      'llmjson jsonl: line 1, column 1, offset 0: recovered: coerced "1" to 1 at /n (string-to-number)',
      'llmjson jsonl: line 1, column 1, offset 0: recovered: coerced "Red" to "red" at /color (enum-case)',
      'llmjson jsonl: line 2, column 1, offset 27: recovered: coerced "true" to true at /ok (string-to-boolean)',
      expect.stringMatching(/^llmjson jsonl: line 3, column 1, offset 50: schema: at \/n: /),
    ]);
  });

  test('jsonl: a list of rules applies those only; --strict counts the dropped line, not the repairs', async () => {
    const r = await runCli(['jsonl', '--schema', itemSchema, '--coerce', 'string-to-number,enum-case', '--strict'], {
      stdin: ['{"n": "1", "color": "Red"}\n{"n": 2}\n'],
    });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([{ n: 1, color: 'red' }, { n: 2 }]);
    const strict = await runCli(['jsonl', '--schema', itemSchema, '--coerce', 'string-to-number', '--strict'], {
      stdin: [JSONL],
    });
    expect(strict.code).toBe(4);
    // "Red" and "true" are not repaired by string-to-number: lines 1 and 2 are dropped with line 3.
    expect(strict.lines).toEqual([{ n: 3 }]);
    expect(strict.err).toContain('--strict: 3 lines or values were dropped');
  });

  test('jsonl --diagnostics json: each repair is an object with rule and path', async () => {
    const r = await runCli(['jsonl', '--schema', itemSchema, '--coerce', '--diagnostics', 'json'], {
      stdin: ['{"n": "7"}\n'],
    });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([{ n: 7 }]);
    expect(JSON.parse(r.err)).toMatchObject({
      source: 'llmjson jsonl',
      reason: 'recovered',
      line: 1,
      path: '/n',
      rule: 'string-to-number',
    });
  });

  test('jsonl --fail-fast: what coercion repairs is no violation; what it cannot still ends the run', async () => {
    const r = await runCli(['jsonl', '--schema', itemSchema, '--coerce', '--fail-fast'], {
      stdin: chunkText(JSONL, 3),
    });
    expect(r.code).toBe(4);
    expect(r.lines).toEqual([
      { n: 1, color: 'red' },
      { n: 2, ok: true },
    ]);
    expect(stderrLines(r.err).at(-1)).toBe(
      'llmjson jsonl: --fail-fast: line 3: /n breaks rule "type": at /n: must be integer',
    );
    // Without --coerce, line 1 ends it.
    const control = await runCli(['jsonl', '--schema', itemSchema, '--fail-fast'], { stdin: chunkText(JSONL, 3) });
    expect(control).toMatchObject({ code: 4, out: '' });
  });

  test('json: the document is printed coerced (fence and prose around it, or whole), exit 0', async () => {
    const answer = 'Here:\n```json\n{"title": "t", "items": [{"n": "1"}, {"n": 2, "color": " BLUE"}]}\n```\n';
    const expected = { title: 't', items: [{ n: 1 }, { n: 2, color: 'blue' }] };
    for (const extra of [[], ['--fail-fast']]) {
      const r = await runCli(['json', '--schema', docSchema, '--coerce', ...extra], { stdin: chunkText(answer, 5) });
      expect(r.code).toBe(0);
      expect(r.lines).toEqual([expected]);
      const offset = answer.indexOf('{');
      expect(stderrLines(r.err)).toEqual([
        `llmjson json: line 3, column 1, offset ${offset}: recovered: coerced "1" to 1 at /items/0/n (string-to-number)`,
        `llmjson json: line 3, column 1, offset ${offset}: recovered: coerced " BLUE" to "blue" at /items/1/color (enum-case)`,
      ]);
    }
    const whole = await runCli(['json', '--schema', docSchema, '--coerce', '--tolerate', 'none'], {
      stdin: ['{"title": "t", "items": [{"n": "5"}]}'],
    });
    expect(whole.code).toBe(0);
    expect(whole.lines).toEqual([{ title: 't', items: [{ n: 5 }] }]);
    expect(stderrLines(whole.err)).toEqual([
      'llmjson json: line 1, column 1, offset 0: recovered: coerced "5" to 5 at /items/0/n (string-to-number)',
    ]);
    // Without --coerce, the same answers fail.
    const control = await runCli(['json', '--schema', docSchema, '--fail-fast'], { stdin: chunkText(answer, 5) });
    expect(control.code).toBe(4);
  });

  test('json: a document still invalid after coercion fails as without it (exit 4)', async () => {
    const answer = '{"title": "t", "items": [{"n": "x"}]}';
    const r = await runCli(['json', '--schema', docSchema, '--coerce'], { stdin: [answer] });
    const control = await runCli(['json', '--schema', docSchema], { stdin: [answer] });
    expect(r).toMatchObject({ code: 4, out: '' });
    expect(r.err).toBe(control.err);
    expect(r.err).toMatch(/^llmjson: SCHEMA_MISMATCH: at \/items\/0\/n: /);
  });

  test('salvage: each value in prose is printed coerced', async () => {
    const text = 'First {"n": "1"} then `{"n": 2, "ok": "false"}` and {"n": "no"}.';
    const r = await runCli(['salvage', '--schema', itemSchema, '--coerce'], { stdin: chunkText(text, 6) });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([{ n: 1 }, { n: 2, ok: false }]);
    const lines = stderrLines(r.err);
    expect(lines.filter((l) => l.includes(': recovered: '))).toEqual([
      'llmjson salvage: line 1, column 7, offset 6: recovered: coerced "1" to 1 at /n (string-to-number)',
      'llmjson salvage: line 1, column 24, offset 23: recovered: coerced "false" to false at /ok (string-to-boolean)',
    ]);
    expect(lines.some((l) => / schema: at \/n: /.test(l))).toBe(true);
  });

  test('elements: each element is printed coerced, at --path too', async () => {
    const r = await runCli(['elements', '--schema', listSchema, '--coerce'], {
      stdin: chunkText('[{"n": "1"}, {"n": 2, "color": "Red"}]', 4),
    });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([{ n: 1 }, { n: 2, color: 'red' }]);
    // The element stream names the element, and the path inside it.
    expect(stderrLines(r.err)).toEqual([
      'llmjson elements: line 1, column 2, offset 1: recovered: element 0: coerced "1" to 1 at /n (string-to-number)',
      'llmjson elements: line 1, column 14, offset 13: recovered: element 1: coerced "Red" to "red" at /color (enum-case)',
    ]);
    const nested = await runCli(
      ['elements', '--schema', docSchema, '--path', '$.items', '--coerce', 'string-to-number', '--strict'],
      { stdin: ['{"title": "t", "items": [{"n": "3"}, {"n": 4}]}'] },
    );
    expect(nested.code).toBe(0);
    expect(nested.lines).toEqual([{ n: 3 }, { n: 4 }]);
    expect(stderrLines(nested.err)).toEqual([
      expect.stringMatching(
        /^llmjson elements: line 1, column \d+, offset \d+: recovered: element 0: coerced "3" to 3 at \/n \(string-to-number\)$/,
      ),
    ]);
  });

  test('partial: the last snapshot is the coerced document; the repair does not fail the run', async () => {
    const r = await runCli(['partial', '--schema', docSchema, '--coerce', '--emit', 'snapshots', '--fail-fast'], {
      stdin: chunkText('{"title": "t", "items": [{"n": "1", "color": "Blue"}]}', 7),
    });
    expect(r.code).toBe(0);
    expect(r.lines.at(-1)).toEqual({ title: 't', items: [{ n: 1, color: 'blue' }] });
    expect(stderrLines(r.err)).toEqual([
      'llmjson partial: line 1, column 1, offset 0: recovered: coerced "1" to 1 at /items/0/n (string-to-number)',
      'llmjson partial: line 1, column 1, offset 0: recovered: coerced "Blue" to "blue" at /items/0/color (enum-case)',
    ]);
  });

  test('an unknown rule is exit 2 naming the rules, before anything is read', async () => {
    for (const mode of ['json', 'jsonl', 'salvage', 'elements', 'partial']) {
      const r = await runCli([mode, '--schema', itemSchema, '--coerce', 'string-to-number,bogus']);
      expect(r).toMatchObject({ code: 2, out: '' });
      expect(r.err).toBe(
        `llmjson: --coerce: unknown rule "bogus"; the rules are ${RULES} (comma-separated; no value: all of them)\n`,
      );
    }
    const empty = await runCli(['jsonl', '--schema', itemSchema, '--coerce=']);
    expect(empty.code).toBe(2);
    expect(empty.err).toContain('--coerce: an empty rule name; the rules are');
    // A file named right after --coerce is its value: the message says so.
    const file = await runCli(['jsonl', '--schema', itemSchema, '--coerce', 'answer.txt']);
    expect(file.code).toBe(2);
    expect(file.err).toContain('a file named right after --coerce is read as its value: put the file first');
  });

  test('without a schema: exit 2, before anything is read', async () => {
    for (const mode of ['json', 'jsonl', 'salvage', 'elements', 'partial']) {
      const r = await runCli([mode, '--coerce']);
      expect(r).toMatchObject({
        code: 2,
        out: '',
        err: 'llmjson: --coerce needs a schema to say what to repair: add --schema or --schema-ref\n',
      });
    }
  });

  test('a Standard Schema module: zod guides and validates; one without a JSON Schema export is exit 2', async () => {
    const zod = join(REPOSITORY, 'fixtures/schemas/definition-relationship.zod.mjs#Extraction');
    const r = await runCli(['jsonl', '--schema', zod, '--coerce'], {
      stdin: ['{"type": "relationship", "subject": "a", "predicate": "b", "object": "c", "object-entity": "true"}\n'],
    });
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([
      { type: 'relationship', subject: 'a', predicate: 'b', object: 'c', 'object-entity': true },
    ]);
    expect(stderrLines(r.err)).toEqual([
      expect.stringMatching(/: recovered: coerced "true" to true at \/object-entity \(string-to-boolean\)/),
    ]);
    const opaque = join(dir, 'opaque.mjs');
    writeFileSync(
      opaque,
      "export default { '~standard': { version: 1, vendor: 'opaque', validate: (value) => ({ value }) } };\n",
    );
    for (const mode of ['json', 'jsonl']) {
      const none = await runCli([mode, '--schema', opaque, '--coerce']);
      expect(none).toMatchObject({ code: 2, out: '' });
      expect(none.err).toContain(
        "--coerce needs the schema's JSON Schema to know what to repair, and this opaque schema exports none",
      );
    }
  });

  test('--help shows the flag, its rules and an example', async () => {
    for (const mode of ['json', 'jsonl', 'salvage', 'elements', 'partial', 'run']) {
      const r = await runCli([mode, '--help']);
      expect(r.code).toBe(0);
      expect(r.out).toContain('--coerce [rules]');
      expect(r.out.replace(/\s+/g, ' ')).toContain('string-to-number, string-to-boolean, single-to-array');
      expect(r.out).toMatch(/\n {2}llmjson .*--coerce/);
    }
  });
});

describe('llmjson run --coerce', () => {
  let server: Server;
  let baseURL = '';
  let reply = '';
  const prompts = join(dir, 'prompts.json');
  writeFileSync(
    prompts,
    JSON.stringify({
      prompts: {
        doc: { prompt: 'Describe it.', 'response-type': 'json', schema: DOC },
        items: { prompt: 'List them.', 'response-type': 'jsonl', schema: ITEM },
        note: { prompt: 'Say something.' },
      },
    }),
  );

  const bodyOf = async (request: IncomingMessage) => {
    for await (const _ of request);
  };

  beforeAll(async () => {
    server = createServer(async (request, response) => {
      await bodyOf(request);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(openAISse(reply, 'stop', 5));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  afterAll(async () => {
    await new Promise((done) => server.close(done));
  });

  const run = (id: string, ...extra: string[]) =>
    runCli(['run', '--prompts', prompts, '--id', id, '--base-url', baseURL, '--model', 'm', ...extra]);

  test('jsonl prompt: objects printed coerced, repairs on stderr, exit 0 (with --fail-fast too)', async () => {
    reply = JSONL;
    for (const extra of [[], ['--fail-fast']]) {
      const r = await run('items', '--coerce', ...extra);
      if (extra.length === 0) {
        expect(r.code).toBe(0);
        expect(r.lines).toEqual([{ n: 1, color: 'red' }, { n: 2, ok: true }, { n: 3 }]);
      } else {
        // --fail-fast: line 3 cannot be coerced, and ends the call.
        expect(r.code).toBe(4);
        expect(r.lines).toEqual([
          { n: 1, color: 'red' },
          { n: 2, ok: true },
        ]);
      }
      expect(stderrLines(r.err).filter((l) => l.includes('recovered'))).toEqual([
        'llmjson run items: line 1, column 1, offset 0: recovered: coerced "1" to 1 at /n (string-to-number)',
        'llmjson run items: line 1, column 1, offset 0: recovered: coerced "Red" to "red" at /color (enum-case)',
        'llmjson run items: line 2, column 1, offset 27: recovered: coerced "true" to true at /ok (string-to-boolean)',
      ]);
    }
  });

  test('json prompt: the document coerced, --api envelope succeeded with the repairs; a list of rules', async () => {
    reply = '```json\n{"title": "t", "items": [{"n": "4", "ok": "false"}]}\n```';
    const r = await run('doc', '--coerce', 'string-to-number,string-to-boolean', '--fail-fast');
    expect(r.code).toBe(0);
    expect(r.lines).toEqual([{ title: 't', items: [{ n: 4, ok: false }] }]);
    expect(stderrLines(r.err)).toEqual([
      'llmjson run doc: offset 8: recovered: coerced "4" to 4 at /items/0/n (string-to-number)',
      'llmjson run doc: offset 8: recovered: coerced "false" to false at /items/0/ok (string-to-boolean)',
    ]);
    const api = await run('doc', '--coerce', '--api');
    expect(api.code).toBe(0);
    const envelope = api.lines[0] as { status: string; diagnostics: { rule: string; path: string }[] };
    expect(envelope.status).toBe('succeeded');
    expect(envelope.diagnostics.map((d) => `${d.rule} ${d.path}`)).toEqual([
      'string-to-number /items/0/n',
      'string-to-boolean /items/0/ok',
    ]);
    // Only string-to-number: /items/0/ok stays invalid, exit 4.
    const some = await run('doc', '--coerce', 'string-to-number');
    expect(some.code).toBe(4);
    expect(some.out).toBe('');
    const control = await run('doc');
    expect(control.code).toBe(4);
  });

  test('an unknown rule, and a text prompt: exit 2 before the call', async () => {
    reply = 'hello';
    const bad = await run('doc', '--coerce', 'nope');
    expect(bad).toMatchObject({ code: 2, out: '' });
    expect(bad.err).toContain(`llmjson: --coerce: unknown rule "nope"; the rules are ${RULES}`);
    const text = await run('note', '--coerce');
    expect(text).toMatchObject({ code: 2, out: '' });
    expect(text.err).toBe(
      'llmjson: --coerce needs a schema to say what to repair, and prompt "note" is a text prompt: it applies to json and jsonl prompts\n',
    );
  });
});
