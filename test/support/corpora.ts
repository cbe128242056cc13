/**
 * The external test corpora live in `../shared/corpora` beside the repository (public data,
 * never copied into it). A user's fresh clone may not have them: tests that read them skip
 * with a visible message saying where they looked. CI always has them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Corpus<T> {
  /** False when the file is absent (the tests must then skip). */
  readonly present: boolean;
  readonly path: string;
  /** Parses the file; only call when `present`. */
  load(): T;
}

/** Locates `relativePath` under the shared corpora folder; warns once when it is absent. */
export function corpus<T>(relativePath: string, what: string): Corpus<T> {
  const path = fileURLToPath(new URL(`../../../shared/corpora/${relativePath}`, import.meta.url));
  const present = existsSync(path);
  if (!present) console.warn(`${what} skipped: ${path} not found (the shared corpora folder is absent).`);
  return { present, path, load: () => JSON.parse(readFileSync(path, 'utf8')) as T };
}
