/**
 * `--coerce [rules]` (json, jsonl, salvage, elements, partial, run): schema-guided coercion
 * (docs/decisions/018 section 4). No value: every rule; a comma-separated list: those. Each
 * repair is printed on stderr as a `recovered` diagnostic naming its path and rule; a repaired
 * value is not a dropped one.
 */

import { COERCION_RULES, type CoerceOption, type CoercionRule } from '@llmjson/core';
import { quoteInput } from '@llmjson/core/internal';
import { UsageError } from './exit-codes.js';

/** The flag's help line. */
export const COERCE_HELP = `repair what the schema makes unambiguous in a value it rejects ("5" for a number, "Red" for the enum value "red"…), validate it again and print it; each repair is a "recovered" diagnostic on stderr naming the path and the rule. No value: every rule; or a comma-separated list of ${COERCION_RULES.join(', ')}. Needs --schema or --schema-ref (run: a json or jsonl prompt)`;

/**
 * The `coerce` option `--coerce` asks for (undefined without the flag). Throws UsageError (exit
 * 2) for a name that is not a rule, naming the rules.
 */
export function coerceFromFlag(value: string | boolean | undefined): CoerceOption | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return true;
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.find((name) => !(COERCION_RULES as readonly string[]).includes(name));
  if (unknown !== undefined) {
    // `--coerce answer.txt`: commander reads the file name as the flag's value.
    const hint = /[./\\]/.test(unknown)
      ? '; a file named right after --coerce is read as its value: put the file first'
      : '';
    throw new UsageError(
      `--coerce: ${unknown === '' ? 'an empty rule name' : `unknown rule ${JSON.stringify(quoteInput(unknown))}`}; the rules are ${COERCION_RULES.join(', ')} (comma-separated; no value: all of them)${hint}`,
    );
  }
  return names as CoercionRule[];
}
