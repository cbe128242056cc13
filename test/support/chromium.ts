/**
 * Where the browser tests (test/e2e/*) find Chromium: Debian's `chromium` package (never a test
 * tool's own browser download), or the binary `CHROMIUM_PATH` names. `.ci/run` installs the
 * package when it is missing, so in CI a test never skips for want of it: there a missing
 * Chromium fails the test with `CHROMIUM_MISSING`, which says what to install.
 */
import { execFileSync } from 'node:child_process';

export const CHROMIUM_MISSING =
  "no Chromium found: install Debian's chromium package (apt-get install -y chromium) or set CHROMIUM_PATH; .ci/run installs it when it is missing";

/** The Chromium binary on this machine, or undefined. */
export function findChromium(): string | undefined {
  for (const name of [process.env.CHROMIUM_PATH, 'chromium', 'chromium-browser']) {
    if (name === undefined || name === '') continue;
    try {
      return execFileSync('sh', ['-c', `command -v "${name}"`], { encoding: 'utf8' }).trim() || undefined;
    } catch {
      // not on PATH
    }
  }
  return undefined;
}
