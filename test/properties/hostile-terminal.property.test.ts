/**
 * Hostile characters on the terminal: whatever a model's answer holds — C0 and C1 controls, DEL,
 * bidi controls, line separators, as raw bytes, as JSON escapes decoded into keys and strings,
 * or as random bytes — every CLI mode's text output on stderr holds none of them raw: only the
 * newlines that end its lines, each line a diagnostic (`llmjson …`) or its excerpt (`    | …`).
 * `--diagnostics json` stays JSON (that reads back to the same characters), with none raw either.
 * Under arbitrary chunking.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { splitAt, splitPoints } from '../support/chunking.js';
import { runCli } from '../support/cli.js';
import { hostileBytes, hostileRuns } from '../support/hostile.js';

/** The oracle, by code point: what a terminal may act on or that breaks a line. */
function isUnsafe(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

const UNSAFE_CHARACTERS: string[] = [];
for (let code = 0; code <= 0x206f; code++) if (isUnsafe(code)) UNSAFE_CHARACTERS.push(String.fromCharCode(code));

/** Each raw unsafe character of `text` other than `\n`, as its code point. */
function rawUnsafe(text: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 0x0a && isUnsafe(code)) found.push(`U+${code.toString(16).padStart(4, '0')} at ${i}`);
  }
  return found;
}

function expectTerminalSafe(err: string, context: string): void {
  expect(rawUnsafe(err), `${context}\n${JSON.stringify(err.slice(0, 600))}`).toEqual([]);
  for (const line of err.split('\n')) {
    if (line !== '') expect(line, context).toMatch(/^(llmjson| {4}\| )/);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'llmjson-terminal-'));
const CLOSED = {
  type: 'object',
  properties: { a: { type: 'string', maxLength: 3 }, b: { enum: ['x'] } },
  additionalProperties: false,
};
const OBJECT_SCHEMA = join(dir, 'closed.schema.json');
const ARRAY_SCHEMA = join(dir, 'closed-list.schema.json');
writeFileSync(OBJECT_SCHEMA, JSON.stringify(CLOSED));
writeFileSync(ARRAY_SCHEMA, JSON.stringify({ type: 'array', items: CLOSED }));

const MODES = ['json', 'jsonl', 'salvage', 'partial', 'elements'] as const;

/** Text rich in the characters a terminal acts on, among JSON's own. */
const hostileCharacters = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...UNSAFE_CHARACTERS) },
      { weight: 2, arbitrary: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '\\', 'a', 'b', ' ', '1', 'x') },
      { weight: 1, arbitrary: fc.string({ maxLength: 6, unit: 'binary' }) },
    ),
    { maxLength: 60 },
  )
  .map((parts) => parts.join(''));

/** Answers a model could send: hostile keys and values as JSON (decoded into messages), raw, and mixed. */
const hostileAnswer: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc
    .array(fc.tuple(hostileCharacters, hostileCharacters), { minLength: 1, maxLength: 4 })
    .chain((pairs) =>
      fc.constantFrom(
        // One object per line (jsonl), an array of them (elements), keys and values decoded.
        pairs.map(([k, v]) => JSON.stringify({ [k]: v, a: v })).join('\n'),
        JSON.stringify(pairs.map(([k, v]) => ({ [k]: v }))),
        // The same characters raw inside the JSON text (not valid JSON: syntax excerpts).
        pairs.map(([k, v]) => `{"${k}": "${v}"}`).join('\n'),
        `Here it is ${pairs.map(([k, v]) => `${k}\n{"b": "${v}"}`).join('\n')}`,
      ),
    )
    .map((text) => new TextEncoder().encode(text)),
  hostileCharacters.map((text) => new TextEncoder().encode(text)),
  hostileBytes,
  fc.uint8Array({ maxLength: 4096 }),
);

describe('text diagnostics never put a raw control or bidi character on the terminal', () => {
  test("the issue's example: a key that sets the terminal's title, in every mode", async () => {
    const key = '\u001b]0;PWNED\u0007';
    for (const mode of MODES) {
      const schema = mode === 'elements' ? ARRAY_SCHEMA : OBJECT_SCHEMA;
      const body = mode === 'elements' ? `[${JSON.stringify({ [key]: 1 })}]` : JSON.stringify({ [key]: 1 });
      for (const size of [1, 3, 64]) {
        const run = await runCli([mode, '--schema', schema], { stdin: splitAt(body, [size, 2 * size]) });
        expect(run.code, `${mode}: ${run.err}`).toBe(mode === 'json' || mode === 'partial' ? 4 : 0);
        expectTerminalSafe(run.err, mode);
        expect(run.err).toContain('\\u001b]0;PWNED\\u0007');
      }
    }
  });

  test('--diagnostics json: valid JSON whose message reads back the same characters, none raw', async () => {
    const key = 'k\u009b31m\u202eevil\u2066\u0085';
    const run = await runCli(['jsonl', '--schema', OBJECT_SCHEMA, '--diagnostics', 'json'], {
      stdin: [`${JSON.stringify({ [key]: 1 })}\n`],
    });
    expect(rawUnsafe(run.err)).toEqual([]);
    const diagnostics = run.err
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { message: string });
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]?.message).toContain(key);
  });

  test('every mode, hostile answers and random bytes, any chunking: only line-ending newlines', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileAnswer.chain((bytes) => fc.tuple(fc.constant(bytes), splitPoints(bytes.length))),
        fc.constantFrom(...MODES, 'tools'),
        fc.constantFrom('text', 'auto'),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom('text', 'json'),
        async ([bytes, points], mode, input, withSchema, failFast, diagnostics) => {
          const argv: string[] =
            mode === 'tools'
              ? ['tools', '--tools', 'fixtures/cli/weather-tools.json', ...(failFast ? ['--fail-fast'] : [])]
              : [
                  mode,
                  '--input',
                  input,
                  ...(withSchema ? ['--schema', mode === 'elements' ? ARRAY_SCHEMA : OBJECT_SCHEMA] : []),
                  ...(withSchema && failFast && mode !== 'salvage' ? ['--fail-fast'] : []),
                ];
          argv.push('--diagnostics', diagnostics);
          const run = await runCli(argv, { stdin: splitAt(bytes, points) });
          expect([0, 3, 4], `${argv.join(' ')}: exit ${run.code}\n${run.err.slice(0, 500)}`).toContain(run.code);
          if (diagnostics === 'text') expectTerminalSafe(run.err, argv.join(' '));
          else {
            // JSON diagnostics: each line a JSON object, nothing raw; verdict lines stay text.
            expect(rawUnsafe(run.err), argv.join(' ')).toEqual([]);
            for (const line of run.err.split('\n')) {
              if (line.startsWith('{')) expect(() => JSON.parse(line)).not.toThrow();
              else if (line !== '') expect(line).toMatch(/^llmjson/);
            }
          }
        },
      ),
      { numRuns: hostileRuns },
    );
  });
});
