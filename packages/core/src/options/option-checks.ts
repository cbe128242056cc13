/**
 * The option policy every public factory shares: the checks that turn a misspelt option name or
 * an enumerated value out of its set into a ConfigurationError (OPTION_INVALID) when the stream,
 * decoder or client is made, and `optionNames`, which each factory's list of names (kept beside
 * its options type, in the factory's own file) is written with.
 *
 * Invariants: each factory's names are one list, held complete against its options type at
 * compile time (`optionNames`), and the same list is what docs/guide/options.md is checked
 * against (test/docs/options-tables.test.ts, through `FACTORY_OPTION_NAMES` of the internal
 * entry); an unknown name is an error that names the closest known one; a value out of its set
 * is an error that lists the allowed values and quotes what it got (a string as a JSON string,
 * so `'10'` reads `"10"`, not `10`).
 *
 * Why: in JavaScript nothing else stops `onDiagnostics` or `schemas`, and validation would then
 * simply be off (docs/decisions/031-one-options-policy.md). A factory that checked its caller's
 * names and passes them on with its own additions marks the object (`OPTION_NAMES_CHECKED`), so
 * the engine it calls does not refuse what the adapter takes and the engine does not.
 * A list is written out whole (no spreads) and marked pure, so that a bundle keeps only the
 * lists of the factories it calls.
 */

import { ConfigurationError, ConfigurationErrorCode } from '../diagnostics/configuration-error.js';
import { quoteInput } from '../diagnostics/diagnostics.js';

/**
 * Set (to `true`) on an options object whose names its factory already checked against a wider
 * list: the engine it is handed to then skips its own name check. A symbol, so that no user
 * option can collide with it and `Object.keys` never lists it.
 */
export const OPTION_NAMES_CHECKED: unique symbol = Symbol('llmjson.optionNamesChecked');

type Missing<O, L extends readonly string[]> = Exclude<keyof O, L[number]>;

/**
 * `names` as a list, checked at compile time against `O`: a name `O` does not have is a type
 * error, and so is a name of `O` that `names` leaves out (the error says which).
 */
export function optionNames<O>() {
  return <const L extends readonly (keyof O & string)[]>(
    names: L & ([Missing<O, L>] extends [never] ? unknown : { readonly missing: Missing<O, L> }),
  ): readonly string[] => names;
}

/**
 * Throws ConfigurationError (OPTION_INVALID) for an own enumerable option name `factory` does
 * not take (`known`: its list here, or a list of another package's factory made with
 * `optionNames`), suggesting the closest one it does. Skipped for options marked `OPTION_NAMES_CHECKED`.
 * Not an object at all (`null`, a string) is an error too; `undefined` is no options.
 */
export function checkOptionNames(factory: string, options: unknown, known: readonly string[]): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `${factory} takes an options object, got ${describeValue(options)}`,
    );
  }
  if ((options as { [OPTION_NAMES_CHECKED]?: unknown })[OPTION_NAMES_CHECKED] === true) return;
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const closest = closestName(name, known);
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `${factory} has no option ${JSON.stringify(quoteInput(name))}${closest === undefined ? '' : `: did you mean ${closest}?`} It takes ${known.join(', ')}`,
    );
  }
}

/**
 * `options` marked as name-checked (see `OPTION_NAMES_CHECKED`), for handing to an engine. The
 * mark is written first: a computed key after a spread sends V8 down its slow path (about 0.8 µs
 * a call on Node 20, against 0.08), and the one-shot engines make this call per answer.
 */
export function namesChecked<O extends object>(options: O): O {
  return { [OPTION_NAMES_CHECKED]: true, ...options };
}

/**
 * Throws ConfigurationError (OPTION_INVALID) unless `value` is absent or one of `choices`: the
 * message lists the allowed values and quotes what it got.
 */
export function checkChoice(name: string, value: unknown, choices: readonly unknown[]): void {
  if (value === undefined || choices.includes(value)) return;
  const allowed = choices.map(describeChoice);
  const list = allowed.length <= 2 ? allowed.join(' or ') : `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}`;
  throw new ConfigurationError(
    ConfigurationErrorCode.optionInvalid,
    `${name} must be ${list}, got ${describeValue(value)}`,
  );
}

function describeChoice(choice: unknown): string {
  return typeof choice === 'string' ? `'${choice}'` : String(choice);
}

/**
 * What a message says a wrong option value was: a string as a JSON string (`"10"`, so that it
 * is not read as the number 10), a number, boolean, null or undefined as itself, anything else
 * by its kind.
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(quoteInput(value));
  if (value === null || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'undefined') {
    return String(value);
  }
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * The known name nearest `name` by edit distance (insertions, deletions, substitutions and
 * swaps of neighbours), when it is near enough to be a slip: at most a third of the name's
 * length, and at least one. Case is a slip too (`maxlinelength`).
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const candidate of known) {
    if (candidate.toLowerCase() === name.toLowerCase()) return candidate;
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: the number of single-character edits (a swap of two neighbours counts one). */
function editDistance(a: string, b: string): number {
  // Rows of the dynamic programme: two rows back, the previous row and the current one.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, (before[j - 2] as number) + 1);
      }
      current.push(d);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}
