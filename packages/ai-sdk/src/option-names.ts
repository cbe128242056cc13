/**
 * Every factory's option names: for the docs test (docs/guide/options.md, checked by
 * test/docs/options-tables.test.ts), never for the factories themselves (each checks its own
 * list, kept beside its options type). Not exported from the package entry.
 */

import { ARRAY_OUTPUT_OPTIONS } from './array-output.js';
import { JSONL_OUTPUT_OPTIONS } from './jsonl-output.js';
import { OBJECT_OUTPUT_OPTIONS } from './object-output.js';
import { PARTIAL_TRANSFORM_OPTIONS } from './partial-transform.js';

export const AI_SDK_OPTION_NAMES: Readonly<Record<string, readonly string[]>> = {
  object: OBJECT_OUTPUT_OPTIONS,
  array: ARRAY_OUTPUT_OPTIONS,
  jsonl: JSONL_OUTPUT_OPTIONS,
  partialObjectTransform: PARTIAL_TRANSFORM_OPTIONS,
};
