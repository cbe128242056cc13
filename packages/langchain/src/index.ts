/**
 * @llmjson/langchain: LangChain.js output parsers over llmjson's incremental engines, for
 * `.pipe()`, `.stream()` and `.invoke()` of any runnable. `@langchain/core` is a peer: this
 * package brings no copy of it.
 *
 * - `PartialJsonOutputParser`: one JSON document, its partial values (or change lists, or RFC
 *   6902 patches) as it streams, prefix-validated, validated at the end; linear in the answer.
 * - `JsonlOutputParser`: one validated object per line, as each line completes; dropped lines
 *   reported.
 * - `SalvageJsonOutputParser`: the JSON value of a whole answer, out of fences and prose.
 *
 * Diagnostics go to `onDiagnostic` and to the run as the custom event `llmjson_diagnostic`
 * (docs/decisions/035-langchain-output-parsers.md).
 *
 * @module index
 */

export {
  applyChanges,
  type Change,
  type DeepPartial,
  type Diagnostic,
  type SchemaInput,
  type SchemaValue,
} from '@llmjson/core';
export type { JsonPatchOperation } from '@llmjson/web';
export { JsonlOutputParser, type JsonlParserOptions } from './jsonl-parser.js';
export { DIAGNOSTIC_EVENT, LlmjsonOutputParserException } from './parser-run.js';
export {
  type JsonEmit,
  type JsonParserOutput,
  PartialJsonOutputParser,
  type PartialJsonParserOptions,
} from './partial-json-parser.js';
export { SalvageJsonOutputParser, type SalvageParserOptions } from './salvage-parser.js';
