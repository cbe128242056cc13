/**
 * Where this package is installed, found by its name rather than from this module's own URL, so
 * that it holds when the code is bundled into another file (the `llmjson` command's bundle:
 * packages/cli/scripts/bundle.mjs). The files the package ships beside its code (the built-in
 * schemas) and the dependencies it loads on demand (Handlebars) are found from here.
 */

import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * This package's `package.json`: found by the package's own name (its `exports` allow it). Code
 * bundled into a file with no such package installed where the file is (a bundle that holds its
 * dependencies too) falls back to the manifest one folder up from the module, where it is in the
 * build, as the package found its files before it looked by name.
 */
export const PACKAGE_JSON = ownManifest();

function ownManifest(): string {
  try {
    return createRequire(import.meta.url).resolve('@llmjson/contracts/package.json');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw error;
    return fileURLToPath(new URL('../package.json', import.meta.url));
  }
}

/** The folder this package is installed in. */
export const PACKAGE_ROOT = dirname(PACKAGE_JSON);

/** `require` as this package's own modules resolve it: its dependencies, wherever the code runs. */
export const requireFromPackage = createRequire(PACKAGE_JSON);
