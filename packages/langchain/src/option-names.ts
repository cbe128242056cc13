/**
 * Every parser's option names, by class: for the docs test (docs/guide/options.md, checked by
 * test/docs/options-tables.test.ts), never for the parsers themselves (each checks its own list,
 * kept beside its options type). Not exported from the package entry.
 */

import { JSONL_PARSER_OPTIONS } from './jsonl-parser.js';
import { PARTIAL_JSON_PARSER_OPTIONS } from './partial-json-parser.js';
import { SALVAGE_PARSER_OPTIONS } from './salvage-parser.js';

export const LANGCHAIN_OPTION_NAMES: Readonly<Record<string, readonly string[]>> = {
  PartialJsonOutputParser: PARTIAL_JSON_PARSER_OPTIONS,
  JsonlOutputParser: JSONL_PARSER_OPTIONS,
  SalvageJsonOutputParser: SALVAGE_PARSER_OPTIONS,
};
