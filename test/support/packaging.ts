/**
 * What the packaging tests (test/packaging/*.test.ts) share: running a command without a shell
 * and collecting what it printed, a failure message that names the command and shows the end of
 * its output, the registry check that skips a test saying why, packing the packages and fresh
 * projects that install them (`PackedPackages`), and the tarball checks every package gets. A
 * hung install is killed after `timeoutMs`.
 */
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

/** Installs from the registry take a while on a cold cache. */
const SLOW = 300_000;

export interface Result {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command without a shell and collects its output (async: vitest's worker stays responsive). */
export function run(command: string, args: readonly string[], cwd: string, timeoutMs = SLOW): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A failure message that says which command failed and shows the end of what it printed. */
export function explain(what: string, result: Result): string {
  const tail = (text: string) => text.trim().split('\n').slice(-40).join('\n');
  return `${what}: exit ${result.code}\n--- stdout\n${tail(result.stdout)}\n--- stderr\n${tail(result.stderr)}`;
}

/** The repository's root, and the folder of its tools (tsc, publint, attw). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'node_modules', '.bin');
/** Installs from the registry take a while on a cold cache. */
export const INSTALL_TIMEOUT = SLOW;
/** A check run inside an installed project. */
export const CHECK_TIMEOUT = 120_000;

/** The version the workspace installed of `name` (what the tests ran against), from `from`'s node_modules. */
export function workspaceVersion(name: string, from = ROOT): string {
  return JSON.parse(readFileSync(join(from, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** Why npm cannot install from its registry (undefined when it can): the test then skips, saying so. */
export async function registryProblem(): Promise<string | undefined> {
  const ping = await run('npm', ['ping', '--fetch-retries=0', '--fetch-timeout=20000'], tmpdir(), 30_000);
  return ping.code === 0 ? undefined : `npm cannot reach its registry.\n${explain('npm ping', ping)}`;
}

/** Prints that the packaging test `label` is skipped, and why. */
export function announceSkip(label: string, why: string): void {
  console.warn(`\n*** test/packaging/${label} SKIPPED: ${why}\n`);
}

/** The fields of a packed package.json the tests look at. */
export interface PackedManifest {
  readonly dependencies: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly sideEffects?: unknown;
  readonly [field: string]: unknown;
}

/**
 * `packages` packed from their built dist (`pnpm pack`, which turns `workspace:*` and `catalog:`
 * into versions) into a fresh folder, and fresh projects there that install the tarballs with npm.
 */
export class PackedPackages {
  work = '';
  readonly tarballs = new Map<string, string>();

  constructor(
    private readonly label: string,
    private readonly packages: readonly string[],
  ) {}

  /** Packs every package (each must be built: `dist/index.js`). */
  async pack(): Promise<void> {
    for (const name of this.packages) {
      if (!existsSync(join(ROOT, 'packages', name, 'dist', 'index.js'))) {
        throw new Error(`@llmjson/${name} has no dist/index.js: build first (npx tsc -b; pnpm test does)`);
      }
    }
    this.work = mkdtempSync(join(tmpdir(), `llmjson-packaging-${this.label}-`));
    const tarballDir = join(this.work, 'tarballs');
    mkdirSync(tarballDir);
    const filters = this.packages.flatMap((name) => ['--filter', `@llmjson/${name}`]);
    const pack = await run('npx', ['-y', 'pnpm@10', '-r', ...filters, 'pack', '--pack-destination', tarballDir], ROOT);
    if (pack.code !== 0) throw new Error(explain('pnpm pack', pack));
    for (const file of readdirSync(tarballDir)) {
      const name = /^llmjson-([a-z-]+?)-\d+\.\d+\.\d+.*\.tgz$/.exec(file)?.[1];
      if (name !== undefined) this.tarballs.set(name, join(tarballDir, file));
    }
    const missing = this.packages.filter((name) => !this.tarballs.has(name));
    if (missing.length > 0) {
      throw new Error(`pnpm pack made no tarball for ${missing.join(', ')}: ${readdirSync(tarballDir)}`);
    }
  }

  /** The tarball of package `name`. */
  tarball(name: string): string {
    return this.tarballs.get(name) ?? '';
  }

  /**
   * A fresh project `name` holding the files of `consumer` (and `example` as run.mjs), where npm
   * installs the tarballs of `packages` beside `peers`.
   */
  async project(
    name: string,
    packages: readonly string[],
    peers: readonly string[],
    files: { readonly consumer: string; readonly example?: string },
  ): Promise<string> {
    const folder = join(this.work, name);
    mkdirSync(folder);
    writeFileSync(
      join(folder, 'package.json'),
      JSON.stringify({ name: `${this.label}-${name}`, private: true, type: 'module' }),
    );
    for (const file of readdirSync(files.consumer)) copyFileSync(join(files.consumer, file), join(folder, file));
    if (files.example !== undefined) copyFileSync(files.example, join(folder, 'run.mjs'));
    const tarballs = packages.map((p) => this.tarball(p));
    const install = await run('npm', ['install', '--no-audit', '--no-fund', ...tarballs, ...peers], folder);
    if (install.code !== 0) throw new Error(explain(`npm install in ${name}`, install));
    return folder;
  }

  /**
   * The packed package.json of package `name`, once the tarball is checked to hold README.md,
   * LICENSE and dist (no tests, no build info) and the manifest to have no `workspace:` or
   * `catalog:` version left.
   */
  async checkedManifest(name: string): Promise<PackedManifest> {
    const list = await run('tar', ['tzf', this.tarball(name)], this.work);
    expect(list.code, explain('tar tzf', list)).toBe(0);
    const entries = list.stdout.split('\n');
    for (const file of ['package/README.md', 'package/LICENSE', 'package/dist/index.js', 'package/dist/index.d.ts']) {
      expect(entries, `${file} missing from the tarball`).toContain(file);
    }
    expect(entries.filter((entry) => /(^|\/)test\/|\.tsbuildinfo$/.test(entry))).toEqual([]);
    const extract = await run('tar', ['xzf', this.tarball(name), 'package/package.json'], this.work);
    expect(extract.code, explain('tar xzf', extract)).toBe(0);
    const text = readFileSync(join(this.work, 'package', 'package.json'), 'utf8');
    expect(text, 'a workspace: or catalog: version left in the packed package.json').not.toMatch(
      /"(workspace|catalog):/,
    );
    return JSON.parse(text) as PackedManifest;
  }

  remove(): void {
    if (this.work !== '') rmSync(this.work, { recursive: true, force: true });
  }
}

/** The tarball checks every package gets: publint --strict, and arethetypeswrong with decision 019's profile. */
export function tarballLintTests(packed: PackedPackages, name: string): void {
  it(
    'publint --strict finds nothing',
    async () => {
      const result = await run(join(BIN, 'publint'), ['run', packed.tarball(name), '--strict'], packed.work);
      expect(result.code, explain('publint', result)).toBe(0);
    },
    CHECK_TIMEOUT,
  );

  it(
    'arethetypeswrong (profile esm-only, as decision 019) finds nothing',
    async () => {
      const args = [packed.tarball(name), '--profile', 'esm-only', '--no-definitely-typed', '--format', 'ascii'];
      const result = await run(join(BIN, 'attw'), args, packed.work);
      expect(result.code, explain('attw --profile esm-only', result)).toBe(0);
    },
    CHECK_TIMEOUT,
  );
}

/**
 * Type-checks consumer.mts in `folder` under `resolution`: strict, DOM lib, no ambient types at
 * all, and the libraries' declarations checked too (a .d.ts of ours that names a Node type, or a
 * framework type the installed version lacks, must fail).
 */
export function typecheckConsumer(folder: string, resolution: 'nodenext' | 'bundler'): Promise<Result> {
  const modules =
    resolution === 'nodenext'
      ? { module: 'nodenext', moduleResolution: 'nodenext' }
      : { module: 'esnext', moduleResolution: 'bundler' };
  const compilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    target: 'ES2022',
    lib: ['ES2022', 'DOM'],
    types: [],
    skipLibCheck: false,
    ...modules,
  };
  const config = join(folder, `tsconfig.${resolution}.json`);
  writeFileSync(config, JSON.stringify({ compilerOptions, files: ['consumer.mts'] }));
  return run(join(BIN, 'tsc'), ['-p', config], folder);
}
