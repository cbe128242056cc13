/**
 * The built `llmjson` command, runnable by another user (`nobody`) wherever the checkout sits.
 *
 * Root reads and writes whatever it likes, so tests of permission errors run the command as
 * `nobody` when the suite runs as root. `nobody` may not be able to reach the checkout at all (a
 * clone under `/root`, or in a `mktemp -d` folder, both mode 700), so the command it runs is not
 * the checkout's `packages/cli/dist/main.js` but a bundle of it (esbuild: the CLI with its
 * dependencies in one file, beside a copy of its package.json, which it reads for its version),
 * written to a fresh folder under the system's temporary directory that everyone may traverse.
 *
 * The bundle holds the same built code; only the command's worker threads (started from their
 * own file on disk) do not work from it, so batch runs as another user pass `--workers 0`.
 *
 * The Node that runs it is the suite's own (`process.execPath`), so a run of the suite on another
 * Node version (`npx -y node@22 …`, as CI does) tests the command on that version. When `nobody`
 * cannot reach that binary (npx keeps it under `/root/.npm`), a copy sits beside the bundle.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { accessSync, chmodSync, constants, copyFileSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, parse } from 'node:path';
import { build } from 'esbuild';
import { REPOSITORY } from './cli.js';

export const isRoot = process.getuid?.() === 0;
/** The uid and gid of `nobody` on Debian and most Linux systems. */
export const NOBODY = 65534;

/** Every folder from `path` up to `/` lets others traverse it (mode o+x). */
export function traversableByOthers(path: string): boolean {
  for (let dir = path; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === parse(dir).root) return true;
  }
}

let bundled: Promise<{ readonly node: string; readonly main: string }> | undefined;

/**
 * The bundled command (built once per test file) and the Node binary to run it with, both in
 * places everyone can reach.
 */
export function cliForOtherUsers(): Promise<{ readonly node: string; readonly main: string }> {
  bundled ??= (async () => {
    const main = join(REPOSITORY, 'packages/cli/dist/main.js');
    accessSync(main, constants.R_OK);
    const base = tmpdir();
    if (!traversableByOthers(base)) {
      throw new Error(`the temporary directory ${base} is not traversable by other users: set TMPDIR to one that is`);
    }
    const root = mkdtempSync(join(base, 'llmjson-cli-'));
    mkdirSync(join(root, 'dist'));
    await build({
      entryPoints: [main],
      outfile: join(root, 'dist/main.js'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // CommonJS dependencies (ajv) call require() for Node's modules; an ES module has none.
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
      logLevel: 'error',
    });
    copyFileSync(join(REPOSITORY, 'packages/cli/package.json'), join(root, 'package.json'));
    for (const path of [root, join(root, 'dist')]) chmodSync(path, 0o755);
    chmodSync(join(root, 'dist/main.js'), 0o755);
    let node = process.execPath;
    if (!traversableByOthers(dirname(node)) || (statSync(node).mode & 0o005) !== 0o005) {
      node = join(root, 'node');
      copyFileSync(process.execPath, node);
      chmodSync(node, 0o755);
    }
    return { node, main: join(root, 'dist/main.js') };
  })();
  return bundled;
}

/** Runs the bundled command as `nobody` in `cwd` (made traversable and writable for it), stdin empty. */
export async function runCliAsNobody(argv: readonly string[], cwd: string): Promise<SpawnSyncReturns<string>> {
  const { node, main } = await cliForOtherUsers();
  chmodSync(cwd, 0o777);
  return spawnSync(node, [main, ...argv], {
    cwd,
    uid: NOBODY,
    gid: NOBODY,
    input: '',
    encoding: 'utf8',
    timeout: 20_000,
  });
}
