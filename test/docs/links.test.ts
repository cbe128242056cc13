/**
 * The relative links of README.md and of the guide (docs/guide/*.md) lead somewhere: each
 * names a file or folder of the repository, and a `#fragment` names a heading of the markdown
 * file it points to (GitHub's anchors: lower case, punctuation but `-` dropped, spaces as `-`).
 * The chapters moved out of the README into docs/guide/, two levels down, so a link copied
 * from the README without its `../../` breaks silently on GitHub; this is where it shows.
 * Links inside code blocks are code, not links, and are not checked; absolute URLs are not
 * fetched (no network in tests).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const documents = [
  'README.md',
  'docs/architecture.md',
  ...readdirSync(join(root, 'docs', 'guide'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/guide/${name}`),
];

/** The markdown text outside fenced code blocks. */
function prose(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const open = /^(`{3,}|~{3,})/.exec(line);
    if (fence !== undefined) {
      if (open !== null && line.startsWith(fence)) fence = undefined;
      continue;
    }
    if (open !== null) {
      fence = open[1];
      continue;
    }
    lines.push(line);
  }
  return lines;
}

/** GitHub's anchor for a heading's text. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  return new Set(
    prose(readFileSync(file, 'utf8')).flatMap((line) => {
      const heading = /^#{1,6} (.*)$/.exec(line);
      return heading === null ? [] : [anchorOf(heading[1] as string)];
    }),
  );
}

/** Every `[text](target)` of the document's prose whose target is not an absolute URL. */
function relativeLinks(doc: string): string[] {
  const text = prose(readFileSync(join(root, doc), 'utf8'))
    .join('\n')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] as string)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

test('anchors are computed as GitHub computes them', () => {
  expect(anchorOf('JSON Schemas as you have them')).toBe('json-schemas-as-you-have-them');
  expect(anchorOf('What gets skipped, recovered and reported')).toBe('what-gets-skipped-recovered-and-reported');
  expect(anchorOf('In the browser: `examples/live-ui`')).toBe('in-the-browser-exampleslive-ui');
});

describe.each(documents)('%s', (doc) => {
  test('every relative link names a file of the repository, and its fragment a heading there', () => {
    const broken: string[] = [];
    for (const target of relativeLinks(doc)) {
      const [path, fragment] = target.split('#') as [string, string | undefined];
      const file = path === '' ? join(root, doc) : normalize(join(root, dirname(doc), decodeURI(path)));
      if (!existsSync(file)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (fragment !== undefined && file.endsWith('.md') && !anchorsOf(file).has(fragment)) {
        broken.push(`${target}: no heading with that anchor`);
      }
    }
    expect(broken).toEqual([]);
  });
});
