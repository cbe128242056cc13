/**
 * The house rules of packages/core/src (docs/architecture.md), checked on the source text:
 * - every file sits in a stage folder, and imports run one way, from a later stage to an
 *   earlier one (or within its own folder); the three entries at the root import anything;
 * - no import circle between files, type-only imports included;
 * - no forwarding re-export outside the entries: a name is imported from the file that
 *   defines it;
 * - private members are JavaScript's own (`#name`), never TypeScript's `private` keyword, except
 *   in the hot classes where #private fields measured slower (decision 033).
 * A rule broken here says which file and which import, so that the fix is plain.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'packages', 'core', 'src');

/** The stages, earliest first: a file may import from its own stage or an earlier one. */
export const STAGES = ['diagnostics', 'options', 'text', 'syntax', 'schema', 'prefix', 'engines', 'provider', 'client'];
const ENTRIES = new Set(['index.ts', 'ajv.ts', 'internal.ts']);
/**
 * The classes whose per-character loops ran 2× to 7× slower on Node 20 with #private fields
 * (docs/decisions/033-private-members.md): they keep TypeScript's `private`.
 */
const TYPESCRIPT_PRIVATE = new Set([
  'engines/salvage-scanner.ts',
  'engines/salvage-delivery.ts',
  'engines/element-scanner.ts',
]);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.name.endsWith('.ts') ? [relative(root, path)] : [];
  });
}

const files = filesUnder(root).sort();
const sources = new Map(files.map((file) => [file, readFileSync(join(root, file), 'utf8')]));

/** Relative module specifiers of `import`/`export … from` and `import('…')`, resolved to files under src. */
function importsOf(file: string): string[] {
  const text = sources.get(file) as string;
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from\s*|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)\.js'/g)) {
    found.push(normalize(join(dirname(file), `${match[1]}.ts`)));
  }
  return found;
}

function stageOf(file: string): number {
  const folder = file.split(/[\\/]/)[0] as string;
  return STAGES.indexOf(folder);
}

describe('packages/core/src is laid out by stage', () => {
  test('the folders are the stages, and every file outside the entries sits in one', () => {
    const misplaced = files.filter((file) => !ENTRIES.has(file) && stageOf(file) < 0);
    expect(misplaced).toEqual([]);
    expect(files.length).toBeGreaterThan(50);
  });

  test('docs/architecture.md describes every stage folder', () => {
    const page = readFileSync(join(root, '..', '..', '..', 'docs', 'architecture.md'), 'utf8');
    const folders = [...new Set(files.filter((file) => !ENTRIES.has(file)).map((file) => dirname(file)))];
    expect(
      folders.filter((folder) => !page.includes(`| \`${folder}/\` |`) && !page.includes(`\`${folder}/\``)),
    ).toEqual([]);
  });

  test('imports resolve to files that exist', () => {
    const missing = files.flatMap((file) =>
      importsOf(file)
        .filter((target) => !sources.has(target))
        .map((target) => `${file} imports ${target}`),
    );
    expect(missing).toEqual([]);
  });

  test('imports run from a later stage to an earlier one (or within a stage)', () => {
    const backwards = files
      .filter((file) => !ENTRIES.has(file))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => ENTRIES.has(target) || stageOf(target) > stageOf(file))
          .map((target) => `${file} (${STAGES[stageOf(file)]}) imports ${target}`),
      );
    expect(backwards).toEqual([]);
  });

  test('no import circle between files, type-only imports included', () => {
    const state = new Map<string, 'open' | 'done'>();
    const circles: string[] = [];
    // Depth-first search with an explicit stack, so the check itself never recurses deeply.
    for (const start of files) {
      if (state.has(start)) continue;
      const stack: { file: string; next: string[] }[] = [{ file: start, next: importsOf(start) }];
      const path = [start];
      state.set(start, 'open');
      while (stack.length > 0) {
        const top = stack[stack.length - 1] as { file: string; next: string[] };
        const target = top.next.pop();
        if (target === undefined) {
          state.set(top.file, 'done');
          stack.pop();
          path.pop();
        } else if (state.get(target) === 'open') {
          circles.push([...path.slice(path.indexOf(target)), target].join(' → '));
        } else if (!state.has(target) && sources.has(target)) {
          state.set(target, 'open');
          path.push(target);
          stack.push({ file: target, next: importsOf(target) });
        }
      }
    }
    expect(circles).toEqual([]);
  });

  test('no forwarding re-exports outside the entries', () => {
    const forwarding = files
      .filter((file) => !ENTRIES.has(file))
      .flatMap((file) =>
        [
          ...(sources.get(file) as string).matchAll(/^export\s+(?:type\s+)?(?:\*|\{[^}]*\})\s*(?:from\s*'[^']+')?;/gm),
        ].map((match) => `${file}: ${match[0].replace(/\s+/g, ' ')}`),
      );
    expect(forwarding).toEqual([]);
  });

  test("private members use JavaScript's #private, not TypeScript's private keyword, but in the measured hot classes", () => {
    const keyword = files
      .filter((file) => !TYPESCRIPT_PRIVATE.has(file))
      .flatMap((file) =>
        (sources.get(file) as string)
          .split('\n')
          .map((line, i) => [line, i + 1] as const)
          .filter(
            ([line]) =>
              /^\s*(?:(?:public|protected|readonly|static|override)\s+)*private\s/.test(line) ||
              /\(\s*private\s/.test(line),
          )
          .map(([line, n]) => `${file}:${n}: ${line.trim()}`),
      );
    expect(keyword).toEqual([]);
    // The exceptions hold no #private at all: one convention per class.
    const mixed = [...TYPESCRIPT_PRIVATE].filter((file) => /(?:this|\w)\.#\w/.test(sources.get(file) ?? ''));
    expect(mixed).toEqual([]);
  });
});
