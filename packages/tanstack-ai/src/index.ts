/**
 * @llmjson/tanstack-ai: an incremental `jsonParser` for TanStack AI's stream processor, which
 * parses each tool call's streaming arguments by reading only what each event added.
 * `@tanstack/ai` is a peer: nothing here imports it at run time (the parser only has to fit its
 * `{ parse }` shape), so this package adds no framework code to a bundle.
 */

export {
  createIncrementalJsonParser,
  DEFAULT_MAX_TEXTS,
  INCREMENTAL_JSON_PARSER_OPTIONS,
  type IncrementalJsonParser,
  type IncrementalJsonParserOptions,
  type IncrementalJsonParserStats,
} from './incremental-json-parser.js';
