/**
 * The decision records in docs/decisions/: every record is listed in the index
 * (docs/decisions/README.md) and every entry of the index is a record, and a record cites only
 * files inside this repository that exist.
 *
 * What counts as a citation:
 * - a markdown link whose target is not a URL (`[003](003-recovery-rules.md)`), resolved from
 *   the record's folder; an `#anchor` is ignored;
 * - a code span that names a path from the repository root (`packages/…`, `test/…`,
 *   `benchmarks/…`, `docs/…`, `fixtures/…`, `examples/…`, `scripts/…`), where `*` matches
 *   within one path segment, `{a,b}` names each alternative (each must exist), and a
 *   `<placeholder>` makes it a pattern, not a citation;
 * - a code span starting with `../`: it names something beside the repository (a reader's
 *   clone does not have it), so it fails unless it resolves, from the record's folder, to a
 *   file inside the repository;
 * - a `file:` URL or an absolute path under a home or work folder, and a bare `NAME.md` that
 *   is neither at the repository root nor beside the record (a document outside the
 *   repository, like a design brief).
 * URLs to public documentation are fine and are not fetched.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const decisions = join(root, 'docs', 'decisions');
const records = readdirSync(decisions)
  .filter((name) => /^\d{3}-.+\.md$/.test(name))
  .sort();
const rootFolders = ['packages', 'test', 'benchmarks', 'docs', 'fixtures', 'examples', 'scripts'];

function insideRepository(path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && !rel.split(sep).includes('node_modules');
}

/** Whether `pattern` (a repository-relative path, `*` within one segment) names at least one file or folder. */
function exists(pattern: string): boolean {
  const segments = pattern.replace(/\/$/, '').split('/');
  let candidates = [root];
  for (const segment of segments) {
    const next: string[] = [];
    for (const dir of candidates) {
      if (!segment.includes('*')) {
        if (existsSync(join(dir, segment))) next.push(join(dir, segment));
        continue;
      }
      const matcher = new RegExp(`^${segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir)) if (matcher.test(name)) next.push(join(dir, name));
    }
    candidates = next;
  }
  return candidates.length > 0;
}

/** `packages/{node,web}/x.ts` → both paths (shell brace notation, one level, several groups). */
function expandBraces(pattern: string): string[] {
  const group = /\{([^{}]*,[^{}]*)\}/.exec(pattern);
  if (group === null) return [pattern];
  const [whole, alternatives] = group as unknown as [string, string];
  return alternatives.split(',').flatMap((alternative) => expandBraces(pattern.replace(whole, alternative)));
}

/** Text outside fenced code blocks, where citations live (a fence quotes output or code). */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** Every problem with the paths a record cites, one message each. */
function citationProblems(name: string, markdown = readFileSync(join(decisions, name), 'utf8')): string[] {
  const text = prose(markdown);
  const problems: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (target === undefined || /^(https?:|mailto:|#)/.test(target)) continue;
    const path = resolve(decisions, decodeURIComponent(target.replace(/#.*$/, '')));
    if (!insideRepository(path)) problems.push(`${name}: link to ${target} leaves the repository`);
    else if (!existsSync(path)) problems.push(`${name}: link to ${target}: no such file`);
  }
  for (const [, span] of text.matchAll(/`([^`\s]+)`/g)) {
    if (span === undefined || span.includes('<')) continue;
    if (span.startsWith('../')) {
      const path = resolve(decisions, span);
      if (!insideRepository(path) || !existsSync(path)) {
        problems.push(`${name}: cites ${span}, outside the repository`);
      }
      continue;
    }
    const first = span.split('/')[0] ?? '';
    if (!span.includes('/') || !rootFolders.includes(first)) continue;
    const missing = expandBraces(span).filter((path) => !exists(path));
    if (missing.length > 0) {
      const which = missing.length === 1 && missing[0] === span ? '' : ` (${missing.join(', ')})`;
      problems.push(`${name}: cites ${span}: no such file in the repository${which}`);
    }
  }
  for (const [url] of text.matchAll(/\bfile:\/\/\S+|(?<![\w.])\/(?:work|home|Users|tmp)\/\S+/g)) {
    problems.push(`${name}: cites ${url}, a path on someone's machine`);
  }
  for (const [, file] of text.matchAll(/(?<![\w./-])([A-Za-z][\w-]*\.md)\b/g)) {
    if (file === undefined) continue;
    if (!existsSync(join(root, file)) && !existsSync(join(decisions, file))) {
      problems.push(`${name}: cites ${file}, which is not in the repository`);
    }
  }
  return problems;
}

describe('docs/decisions/README.md, the index of decision records', () => {
  const index = readFileSync(join(decisions, 'README.md'), 'utf8');
  const listed = [...index.matchAll(/\]\((\d{3}-[^)#\s]+\.md)\)/g)].map((m) => m[1] as string);

  test('there are records to index', () => {
    expect(records.length).toBeGreaterThanOrEqual(19);
  });

  test('every record is listed in the index', () => {
    expect(records.filter((record) => !listed.includes(record))).toEqual([]);
  });

  test('every record listed in the index exists', () => {
    expect(listed.filter((record) => !records.includes(record))).toEqual([]);
  });

  test('each record is listed once, in number order, under its own number', () => {
    expect(listed).toEqual([...new Set(listed)].sort());
    for (const record of listed) {
      const number = record.slice(0, 3);
      expect(index, `${record} is listed as [${number}]`).toContain(`[${number}](${record})`);
    }
  });
});

describe('decision records cite only files inside the repository that exist', () => {
  test.each(records)('%s', (name) => {
    expect(citationProblems(name)).toEqual([]);
  });

  test('the index cites only files that exist', () => {
    const text = readFileSync(join(decisions, 'README.md'), 'utf8');
    const problems = [...text.matchAll(/`((?:test|docs|packages)\/[^`\s]+)`/g)]
      .map((m) => m[1] as string)
      .filter((path) => !exists(path));
    expect(problems).toEqual([]);
  });
});

test('the citation check catches what it is meant to catch', () => {
  // A self-check on the helpers above, so a regex that silently matches nothing fails here.
  expect(exists('test/docs/decisions.test.ts')).toBe(true);
  expect(exists('fixtures/*')).toBe(true);
  expect(exists('test/docs/no-such-file.ts')).toBe(false);
  expect(expandBraces('packages/{node,web}/src/{a,b}.ts')).toEqual([
    'packages/node/src/a.ts',
    'packages/node/src/b.ts',
    'packages/web/src/a.ts',
    'packages/web/src/b.ts',
  ]);
  expect(insideRepository(resolve(decisions, '../../../shared/corpora'))).toBe(false);
  expect(insideRepository(resolve(decisions, '003-recovery-rules.md'))).toBe(true);
  expect(dirname(join(decisions, 'x.md'))).toBe(decisions);
  const sample = [
    'As DESIGN.md says, see [003](003-recovery-rules.md) and [none](004-none.md), [up](../../../x.md).',
    'Data in `../shared/corpora/extraction/`, tested by `test/docs/decisions.test.ts` and `test/no/such.ts`;',
    '`fixtures/*` exists, `packages/<pkg>/src` is a pattern, and file:///work/shared/x.md is local.',
    '```text',
    'quoted output naming `test/also/missing.ts` is not a citation',
    '```',
  ].join('\n');
  expect(citationProblems('sample.md', sample)).toEqual([
    'sample.md: link to 004-none.md: no such file',
    'sample.md: link to ../../../x.md leaves the repository',
    'sample.md: cites ../shared/corpora/extraction/, outside the repository',
    'sample.md: cites test/no/such.ts: no such file in the repository',
    "sample.md: cites file:///work/shared/x.md, a path on someone's machine",
    'sample.md: cites DESIGN.md, which is not in the repository',
  ]);
});
