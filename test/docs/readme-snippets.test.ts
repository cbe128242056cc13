/**
 * Every ```ts and ```js block in README.md and in the guide's chapters (docs/guide/*.md)
 * type-checks against the built packages and runs: a chapter's example that breaks fails here
 * exactly as a README example does.
 *
 * Each block is written to test/docs/.snippets/run-<pid>/<id>/ (git-ignored; one folder per run,
 * so that two runs at once in one working tree never delete each other's files; removed
 * afterwards unless KEEP_SNIPPETS=1), type-checked by one `tsc` run with the repository's strict settings
 * (tsconfig.base.json: `strict`, `exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`,
 * `module`/`moduleResolution` NodeNext; lib ES2022 + DOM, types node), `@llmjson/*` resolved
 * through the workspace's node_modules to the built packages, then run with Node against
 * fixtures and a local fake model server (test/docs/support/fake-model-server.ts): `fetch` is
 * routed to it by test/docs/support/snippet-env.mjs, so no snippet reaches the network.
 *
 * Conventions for the blocks (README.md and docs/guide/*.md alike):
 * - A block imports everything it uses from a package (`@llmjson/*`, `node:*`, zod): a reader
 *   copies it as written. What is the reader's own — the model's text stream, `render`, a
 *   schema defined in an earlier block, the page's DOM nodes — comes from a hidden prelude.
 * - The hidden prelude is an HTML comment right before the fence (invisible on GitHub):
 *
 *       <!-- snippet prelude (test/docs/readme-snippets.test.ts)
 *       const render = (value: unknown) => console.log(JSON.stringify(value));
 *       // file answer.jsonl: fixtures/answers/definition-relationship.txt
 *       // llmjson: compile schema.json -o schema.validate.js
 *       // expect: "entity":"mitochondrion"
 *       // no-run: why this block is only type-checked
 *       -->
 *       ```ts
 *
 *   Its code lines are put before the block's (its imports must not repeat the block's).
 *   Directives: `// file NAME: PATH` copies a repository file or folder into the snippet's
 *   folder (its working directory); `// llmjson: ARGS` runs the built CLI there before the
 *   type-check; `// expect: TEXT` requires TEXT in the run's stdout or stderr; `// no-run:
 *   REASON` type-checks only.
 */
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { transformSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type FakeModelServer, startFakeModelServer } from './support/fake-model-server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const snippetsDir = join(root, 'test', 'docs', '.snippets', `run-${process.pid}`);
const snippetEnv = fileURLToPath(new URL('./support/snippet-env.mjs', import.meta.url));
const cli = join(root, 'packages', 'cli', 'dist', 'main.js');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const run = promisify(execFile);

interface Snippet {
  /** `readme-0066`, `guide-jsonl-0012`: the document and the line of the opening fence. */
  readonly id: string;
  /** The markdown file, relative to the repository root: `README.md`, `docs/guide/jsonl.md`. */
  readonly doc: string;
  readonly line: number;
  readonly lang: 'ts' | 'js';
  readonly code: string;
  readonly prelude: readonly string[];
  readonly files: readonly { readonly name: string; readonly from: string }[];
  readonly llmjson: readonly string[];
  readonly expect: readonly string[];
  readonly noRun: string | undefined;
}

/**
 * The ts/js blocks of a markdown text, each with the hidden prelude before it. `doc` names the
 * file in ids and messages.
 */
export function extractSnippets(markdown: string, doc = 'README.md'): Snippet[] {
  const lines = markdown.split('\n');
  const snippets: Snippet[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const open = /^(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (fence !== undefined) {
      if (line.startsWith(fence) && line.trim() === line.trim().replace(/[^`~]/g, '')) fence = undefined;
      continue;
    }
    if (open === null) continue;
    fence = open[1] as string;
    const lang = { ts: 'ts', typescript: 'ts', js: 'js', javascript: 'js', mjs: 'js' }[open[2] ?? ''] as
      | 'ts'
      | 'js'
      | undefined;
    if (lang === undefined) continue;
    const end = lines.findIndex((l, k) => k > i && l.startsWith(fence as string));
    const code = lines.slice(i + 1, end).join('\n');
    const prelude: string[] = [];
    if ((lines[i - 1] ?? '').trim() === '-->') {
      let start = i - 2;
      while (start >= 0 && !(lines[start] as string).startsWith('<!-- snippet')) start--;
      if (start >= 0) prelude.push(...lines.slice(start + 1, i - 1));
    }
    const directive = (name: string) =>
      prelude.flatMap((l) => {
        const m = new RegExp(`^// ${name}:? (.*)$`).exec(l);
        return m === null ? [] : [m[1] as string];
      });
    snippets.push({
      id: `${documentSlug(doc)}-${String(i + 1).padStart(4, '0')}`,
      doc,
      line: i + 1,
      lang,
      code,
      prelude: prelude.filter((l) => !/^\/\/ (file|llmjson|expect|no-run)\b/.test(l)),
      files: directive('file').map((d) => {
        const [name, from] = d.split(/:\s*/);
        return { name: name as string, from: from as string };
      }),
      llmjson: directive('llmjson'),
      expect: directive('expect'),
      noRun: directive('no-run')[0],
    });
    i = end;
    fence = undefined;
  }
  return snippets;
}

/** `readme` for README.md, `guide-jsonl` for docs/guide/jsonl.md: a folder name for ids. */
function documentSlug(doc: string): string {
  return doc === 'README.md' ? 'readme' : `guide-${basename(doc, '.md').toLowerCase()}`;
}

const guideDir = join(root, 'docs', 'guide');
/** README.md, then every chapter of the guide in name order. */
const documents = [
  'README.md',
  ...readdirSync(guideDir)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/guide/${name}`),
];
const snippets = documents.flatMap((doc) => extractSnippets(readFileSync(join(root, doc), 'utf8'), doc));
const sourceName = (s: Snippet) => (s.lang === 'ts' ? 'snippet.ts' : 'snippet.mjs');
/** Lines before the block's first line in the written file: the header comment and the prelude. */
const headerLines = (s: Snippet) => 1 + s.prelude.length;

/** `web` for a block that imports @llmjson/web (checked with the DOM library), else `node`. */
const environment = (s: Snippet) => (/from '@llmjson\/web/.test(s.code) ? 'web' : 'node');
const checkedConfigs: string[] = [];
/** tsc's complaints, by snippet id, with the markdown file's line numbers. */
const typeErrors = new Map<string, string[]>();
let server: FakeModelServer;

beforeAll(async () => {
  rmSync(snippetsDir, { recursive: true, force: true });
  mkdirSync(snippetsDir, { recursive: true });
  for (const s of snippets) {
    const dir = join(snippetsDir, s.id);
    mkdirSync(dir);
    for (const { name, from } of s.files) cpSync(join(root, from), join(dir, name), { recursive: true });
    for (const args of s.llmjson) {
      const result = spawnSync(process.execPath, [cli, ...args.split(' ')], { cwd: dir, encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`${s.doc}:${s.line}: llmjson ${args}: ${result.stderr}`);
    }
    const header = s.lang === 'js' ? '// @ts-check' : `// ${s.doc} line ${s.line + 1}`;
    writeFileSync(join(dir, sourceName(s)), [header, ...s.prelude, s.code, 'export {};', ''].join('\n'));
  }
  // Node blocks are checked as a Node project is (Node's types, no DOM); blocks that import
  // @llmjson/web as a page is (the DOM library, no Node types).
  const output: string[] = [];
  for (const env of ['node', 'web'] as const) {
    const files = snippets.filter((s) => environment(s) === env).map((s) => `${s.id}/${sourceName(s)}`);
    const config = join(snippetsDir, `tsconfig.${env}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        extends: relative(snippetsDir, join(root, 'tsconfig.base.json')),
        compilerOptions: {
          composite: false,
          declaration: false,
          declarationMap: false,
          sourceMap: false,
          noEmit: true,
          allowJs: true,
          checkJs: false,
          lib: env === 'web' ? ['ES2022', 'DOM', 'DOM.Iterable', 'DOM.AsyncIterable'] : ['ES2022'],
          types: env === 'web' ? [] : ['node'],
        },
        files,
      }),
    );
    const checked = spawnSync(process.execPath, [tsc, '-p', config, '--pretty', 'false'], {
      cwd: root,
      encoding: 'utf8',
    });
    checkedConfigs.push(env);
    output.push(...checked.stdout.split('\n'));
  }
  for (const message of output.filter((l) => /error TS\d+/.test(l))) {
    const m = /\.snippets\/run-\d+\/([\w-]+-\d+)\/snippet\.m?[jt]s\((\d+),(\d+)\): (.*)$/.exec(message);
    const s = snippets.find((x) => x.id === m?.[1]);
    if (m === null || s === undefined) {
      typeErrors.set('other', [...(typeErrors.get('other') ?? []), message]);
      continue;
    }
    const fileLine = Number(m[2]);
    const where =
      fileLine > headerLines(s) ? `${s.doc}:${s.line + fileLine - headerLines(s)}` : `prelude line ${fileLine - 1}`;
    typeErrors.set(s.id, [...(typeErrors.get(s.id) ?? []), `${where}:${m[3]}: ${m[4]}`]);
  }
  server = await startFakeModelServer();
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (process.env.KEEP_SNIPPETS !== '1') rmSync(snippetsDir, { recursive: true, force: true });
});

/** The ts/js opening fences of a markdown file, counted independently of the extractor. */
const fencesIn = (doc: string) =>
  readFileSync(join(root, doc), 'utf8')
    .split('\n')
    .filter((l) => /^```\s*(ts|js|typescript|javascript|mjs)\s*$/.test(l)).length;

test('README.md has ts and js blocks, and the extractor finds them all', () => {
  expect(snippets.filter((s) => s.doc === 'README.md').length).toBe(fencesIn('README.md'));
  // One example per capability; the chapters in docs/guide/ hold the rest.
  expect(snippets.filter((s) => s.doc === 'README.md').length).toBeGreaterThanOrEqual(9);
});

test('every guide chapter is read, and the extractor finds all of its ts and js blocks', () => {
  const chapters = documents.filter((doc) => doc !== 'README.md');
  expect(chapters).toContain('docs/guide/jsonl.md');
  for (const doc of chapters) expect(snippets.filter((s) => s.doc === doc).length, doc).toBe(fencesIn(doc));
  expect(snippets.filter((s) => s.doc !== 'README.md').length).toBeGreaterThanOrEqual(15);
});

test('the type-check ran and found nothing outside the snippets', () => {
  expect(checkedConfigs).toEqual(['node', 'web']);
  expect(snippets.filter((s) => environment(s) === 'web').length).toBeGreaterThan(0);
  expect(typeErrors.get('other') ?? []).toEqual([]);
});

describe.each(snippets)('$doc line $line ($lang)', (s) => {
  test('type-checks', () => {
    expect(typeErrors.get(s.id) ?? []).toEqual([]);
  });

  if (s.noRun !== undefined) return;
  test('runs', async () => {
    const dir = join(snippetsDir, s.id);
    const source = readFileSync(join(dir, sourceName(s)), 'utf8');
    const js = transformSync(source, { loader: s.lang, format: 'esm', target: 'node20' }).code;
    writeFileSync(join(dir, 'run.mjs'), js);
    const { stdout, stderr } = await run(process.execPath, ['--import', snippetEnv, 'run.mjs'], {
      cwd: dir,
      env: { ...process.env, LLMJSON_SNIPPET_SERVER: server.origin, NO_COLOR: '1' },
      timeout: 30_000,
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`${s.doc}:${s.line} failed:\n${error.stderr ?? ''}\n${error.stdout ?? ''}\n${error.message}`);
    });
    for (const text of s.expect) expect(`${stdout}\n${stderr}`, `${s.doc}:${s.line}`).toContain(text);
  });
});
