/**
 * Schema references: `tnh.sectioning.default_section.v1` names the file
 * `tnh/sectioning/default_section/v1.schema.json` under the first search root that holds it.
 *
 * Roots, highest precedence first (the default order):
 * 1. workspace — `./schemas/prompt-contracts/` under the working directory;
 * 2. user — `$XDG_CONFIG_HOME/llmjson/schemas/prompt-contracts/` (or `~/.config/…`);
 * 3. built-in — the `schemas/prompt-contracts/` folder shipped with this package.
 *
 * Rules:
 * - A reference is one or more dot-separated segments of ASCII letters, digits, `_` and `-`.
 *   Anything else (an empty segment, `..`, a slash, a backslash, an absolute path) is
 *   `SCHEMA_REF_INVALID` before the file system is touched.
 * - A file found under a root must still be under that root once symlinks are resolved;
 *   one that escapes is `SCHEMA_REF_INVALID`, never read.
 * - A schema file must be a regular file of at most 64 MiB (`MAX_SCHEMA_FILE_BYTES`): a FIFO,
 *   a device such as `/dev/zero` or a larger file is `SCHEMA_INVALID`, never read past the cap.
 * - A file must be UTF-8 JSON and a valid JSON Schema (ajv meta-validation, draft-07 by
 *   default, 2019-09 or 2020-12 by `$schema`), else `SCHEMA_INVALID` naming the file.
 * - Each reference is read and compiled once; the result says which root won.
 * - Messages quote a reference, a path or a schema at most `MAX_QUOTED_LENGTH` characters
 *   (`quoteInput`), so a hostile reference cannot turn one message into megabytes.
 */

import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { CompiledSchema, CompileOptions, JsonSchema, SchemaInput } from '@llmjson/core';
import { compileSchema } from '@llmjson/core/ajv';
import { checkOptionNames, compileStandardSchema, isStandardSchema, quoteInput } from '@llmjson/core/internal';
import { ContractConfigurationError, ContractErrorCode } from './errors.js';
import { CONTRACTS_OPTION_NAMES } from './option-names.js';
import { PACKAGE_ROOT } from './package-root.js';

export type SchemaRootKind = 'workspace' | 'user' | 'builtin' | 'custom';

export interface SchemaRoot {
  readonly dir: string;
  readonly kind: SchemaRootKind;
}

export interface DefaultRootsOptions {
  /** Working directory for the workspace root. Default `process.cwd()`. */
  readonly cwd?: string;
  /** Environment for `XDG_CONFIG_HOME`. Default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Home directory for `~/.config`. Default `os.homedir()`. */
  readonly home?: string;
}

export interface SchemaRegistryOptions extends DefaultRootsOptions {
  /**
   * Search roots, highest precedence first: directories (kind `custom`) or `{ dir, kind }`.
   * Default: `defaultSchemaRoots()`. Relative directories are resolved against `cwd`.
   */
  readonly roots?: readonly (string | SchemaRoot)[];
}

export interface ResolvedSchema {
  readonly ref: string;
  readonly schema: JsonSchema;
  /** The file read (as found under its root, before symlinks are resolved). */
  readonly file: string;
  /** The root that won. */
  readonly root: SchemaRoot;
}

export interface SchemaRegistry {
  /** The search roots, highest precedence first. */
  readonly roots: readonly SchemaRoot[];
  /** Reads and checks the schema a reference names. Throws `ContractConfigurationError`. */
  resolve(ref: string): ResolvedSchema;
  /** The compiled validator for a reference (compiled once per reference and options). */
  compile(ref: string, options?: CompileOptions): CompiledSchema;
}

/** The built-in root: the `schemas/prompt-contracts/` folder of this package (ends with a separator). */
export const BUILTIN_SCHEMA_ROOT = `${join(PACKAGE_ROOT, 'schemas', 'prompt-contracts')}${sep}`;

/** Workspace, user and built-in roots, in that order. */
export function defaultSchemaRoots(options: DefaultRootsOptions = {}): SchemaRoot[] {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const configHome = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : join(options.home ?? homedir(), '.config');
  return [
    { dir: resolve(cwd, 'schemas', 'prompt-contracts'), kind: 'workspace' },
    { dir: resolve(configHome, 'llmjson', 'schemas', 'prompt-contracts'), kind: 'user' },
    { dir: BUILTIN_SCHEMA_ROOT, kind: 'builtin' },
  ];
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * Longest explanation of a failure (the validator's, the file system's) repeated in a message:
 * they quote schema keys and paths, so they are bounded too, with room for several errors.
 */
const MAX_EXPLANATION_LENGTH = 1000;

/** A reference (or what was given instead of one) as a message quotes it: JSON, cut. */
function quoteRef(ref: unknown): string {
  return typeof ref === 'string' ? JSON.stringify(quoteInput(ref)) : quoteInput(String(JSON.stringify(ref)));
}

function explain(cause: unknown): string {
  return quoteInput(cause instanceof Error ? cause.message : String(cause), MAX_EXPLANATION_LENGTH);
}

/** The relative file a reference names, or a reason it is not a reference. */
export function schemaRefPath(ref: string): string {
  const reject = (why: string): never => {
    throw new ContractConfigurationError(
      ContractErrorCode.schemaRefInvalid,
      `invalid schema reference ${quoteRef(ref)}: ${why}; a reference is dot-separated segments of letters, digits, "_" and "-", such as "tnh.sectioning.default_section.v1"`,
      { ref },
    );
  };
  if (typeof ref !== 'string' || ref.length === 0) return reject('it is empty');
  if (ref.includes('/') || ref.includes('\\')) return reject('it contains a path separator');
  const segments = ref.split('.');
  for (const segment of segments) {
    if (segment.length === 0) return reject('it has an empty segment');
    if (!SEGMENT.test(segment)) return reject(`segment ${quoteRef(segment)} has other characters`);
  }
  return `${segments.join('/')}.schema.json`;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function inside(dir: string, path: string): boolean {
  const r = relative(dir, path);
  return r !== '' && !r.startsWith(`..${sep}`) && r !== '..' && !isAbsolute(r);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Largest schema file read, in bytes: 64 MiB. A schema is read whole, so a larger one (or a
 * device that never ends, such as `/dev/zero`) is SCHEMA_INVALID before anything is read past it.
 */
export const MAX_SCHEMA_FILE_BYTES = 64 * 1024 * 1024;

/** Why a file is refused before it is read: what it is, when it is not a regular file. */
class RefusedFile extends Error {}

/**
 * The bytes of a schema file, read from a handle checked to be a regular file of at most
 * MAX_SCHEMA_FILE_BYTES: opened without blocking (a FIFO without a writer would hang the open),
 * checked with fstat (the handle, not the path, so a swapped path cannot race the check), and
 * read to at most one byte past the cap (a file growing while it is read is caught too).
 */
function readSchemaBytes(file: string): Uint8Array {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' });
    if (!stat.isFile()) {
      const kind = stat.isFIFO()
        ? 'a FIFO'
        : stat.isCharacterDevice()
          ? 'a character device'
          : stat.isBlockDevice()
            ? 'a block device'
            : stat.isSocket()
              ? 'a socket'
              : 'not a file';
      throw new RefusedFile(`it is not a regular file (${kind})`);
    }
    const tooLarge = () => new RefusedFile(`larger than ${MAX_SCHEMA_FILE_BYTES} bytes (the limit for a schema file)`);
    if (stat.size > MAX_SCHEMA_FILE_BYTES) throw tooLarge();
    let buffer = Buffer.allocUnsafe(Math.min(stat.size, MAX_SCHEMA_FILE_BYTES) + 1);
    let total = 0;
    for (;;) {
      if (total === buffer.length) {
        // It grew since fstat: room for more, up to one byte past the cap.
        const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 2, MAX_SCHEMA_FILE_BYTES + 1));
        buffer.copy(bigger);
        buffer = bigger;
      }
      const n = readSync(fd, buffer, total, buffer.length - total, null);
      if (n === 0) break;
      total += n;
      if (total > MAX_SCHEMA_FILE_BYTES) throw tooLarge();
    }
    return buffer.subarray(0, total);
  } finally {
    closeSync(fd);
  }
}

/** Reads a schema file: a regular file of at most MAX_SCHEMA_FILE_BYTES, UTF-8 JSON (a BOM is tolerated). Throws SCHEMA_INVALID naming the file. */
export function readSchemaFile(file: string, ref?: string): JsonSchema {
  const details = ref === undefined ? { file } : { file, ref };
  let text: string;
  try {
    text = utf8.decode(readSchemaBytes(file));
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    // By code, not by message: a file system message repeats the whole path.
    const why =
      cause instanceof RefusedFile
        ? cause.message
        : cause instanceof TypeError
          ? 'it is not valid UTF-8'
          : code === 'ENOENT'
            ? 'no such file'
            : code === 'EISDIR'
              ? 'it is a directory'
              : code === 'EACCES' || code === 'EPERM'
                ? 'permission denied'
                : code === 'ENAMETOOLONG'
                  ? 'the name is too long'
                  : code === 'ENXIO'
                    ? 'it is not a regular file (a socket, or a device that is not there)'
                    : (code ?? explain(cause));
    throw new ContractConfigurationError(ContractErrorCode.schemaInvalid, `schema file ${quoteInput(file)}: ${why}`, {
      ...details,
      cause,
    });
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (cause) {
    throw new ContractConfigurationError(
      ContractErrorCode.schemaInvalid,
      `schema file ${quoteInput(file)} is not JSON: ${explain(cause)}`,
      { ...details, cause },
    );
  }
  if (typeof schema !== 'boolean' && (typeof schema !== 'object' || schema === null || Array.isArray(schema))) {
    throw new ContractConfigurationError(
      ContractErrorCode.schemaInvalid,
      `schema file ${quoteInput(file)} holds ${Array.isArray(schema) ? 'an array' : quoteInput(JSON.stringify(schema))}, not a JSON Schema (an object or a boolean)`,
      details,
    );
  }
  return schema as JsonSchema;
}

/**
 * The compiled validator of a JSON Schema (ajv) or a Standard Schema (the vendor's own
 * `validate`, through core's `compileStandardSchema`), as core's engines route a `schema`
 * option. Both compile once per schema object. Throws core's `ConfigurationError`.
 */
export function compileSchemaInput(schema: SchemaInput, options: CompileOptions = {}): CompiledSchema {
  return isStandardSchema(schema) ? compileStandardSchema(schema, options) : compileSchema(schema, options);
}

/**
 * Compiles a schema (a JSON Schema meta-validated by ajv, or a Standard Schema such as zod's);
 * a broken one is SCHEMA_INVALID naming where it came from.
 */
export function compileContractSchema(
  schema: SchemaInput,
  where: string,
  options: CompileOptions = {},
  details: { ref?: string; file?: string; promptId?: string } = {},
): CompiledSchema {
  try {
    return compileSchemaInput(schema, options);
  } catch (cause) {
    const what = isStandardSchema(schema)
      ? `cannot be used (a ${quoteInput(String(schema['~standard'].vendor))} Standard Schema)`
      : 'is not a valid JSON Schema';
    throw new ContractConfigurationError(ContractErrorCode.schemaInvalid, `${where} ${what}: ${explain(cause)}`, {
      ...details,
      cause,
    });
  }
}

class Registry implements SchemaRegistry {
  readonly roots: readonly SchemaRoot[];
  private readonly resolved = new Map<string, ResolvedSchema>();

  constructor(options: SchemaRegistryOptions) {
    const cwd = options.cwd ?? process.cwd();
    this.roots = (options.roots ?? defaultSchemaRoots(options)).map((root) =>
      typeof root === 'string'
        ? { dir: resolve(cwd, root), kind: 'custom' as const }
        : { dir: resolve(cwd, root.dir), kind: root.kind },
    );
  }

  resolve(ref: string): ResolvedSchema {
    const cached = this.resolved.get(ref);
    if (cached !== undefined) return cached;
    const relativePath = schemaRefPath(ref);
    for (const root of this.roots) {
      const file = join(root.dir, relativePath);
      if (!isFile(file)) continue;
      // Symlinks may point anywhere: the real file must stay under the real root.
      const realRoot = realpathSync(root.dir);
      const realFile = realpathSync(file);
      if (!inside(realRoot, realFile)) {
        throw new ContractConfigurationError(
          ContractErrorCode.schemaRefInvalid,
          `schema reference ${quoteRef(ref)}: ${quoteInput(file)} resolves to ${quoteInput(realFile)}, outside its root ${quoteInput(realRoot)} (a symlink escapes the root); not read`,
          { ref, file },
        );
      }
      const schema = readSchemaFile(file, ref);
      compileContractSchema(schema, `schema file ${quoteInput(file)} (reference ${quoteRef(ref)})`, {}, { ref, file });
      const result: ResolvedSchema = { ref, schema, file, root };
      this.resolved.set(ref, result);
      return result;
    }
    throw new ContractConfigurationError(
      ContractErrorCode.schemaNotFound,
      `schema reference ${quoteRef(ref)} not found: looked for ${quoteInput(relativePath)} in ${this.roots
        .map((r) => `${quoteInput(r.dir)} (${r.kind})`)
        .join(', ')}`,
      { ref },
    );
  }

  compile(ref: string, options: CompileOptions = {}): CompiledSchema {
    const { schema, file } = this.resolve(ref);
    // compileSchema caches per schema object and options; the schema object is kept here.
    return compileContractSchema(schema, `schema file ${quoteInput(file)}`, options, { ref, file });
  }
}

/** Creates a registry over ordered search roots (default: workspace, user, built-in). */
export function createSchemaRegistry(options: SchemaRegistryOptions = {}): SchemaRegistry {
  checkOptionNames('createSchemaRegistry', options, CONTRACTS_OPTION_NAMES.createSchemaRegistry);
  return new Registry(options);
}
