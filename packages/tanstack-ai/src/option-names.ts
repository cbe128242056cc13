/**
 * The parser factory's option names: for the docs test (docs/guide/options.md, checked by
 * test/docs/options-tables.test.ts), never for the factory itself (it checks its own list, kept
 * beside its options type). Not exported from the package entry.
 */

import { INCREMENTAL_JSON_PARSER_OPTIONS } from './incremental-json-parser.js';

export const TANSTACK_AI_OPTION_NAMES: Readonly<Record<string, readonly string[]>> = {
  createIncrementalJsonParser: INCREMENTAL_JSON_PARSER_OPTIONS,
};
