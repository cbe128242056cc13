/**
 * `@llmjson/core/internal`: the plumbing that @llmjson/node, @llmjson/web, @llmjson/contracts
 * and the `llmjson` command share with core — option checks, the stream adapters' helpers, the
 * incremental JSON scanner and schema walking. Users import `@llmjson/core` (or a stream
 * package) instead: nothing here is part of the documented API, and it may change in any
 * release (docs/decisions/025-public-and-internal-core.md). The API reference leaves it out
 * (`@internal`, with TypeDoc's `excludeInternal`).
 *
 * @module
 * @internal
 */

export { coerceToSchema, coercionRules } from './coerce.js';
export { depthExceeds, mayExceedDepth } from './depth.js';
export { excerptAround, MAX_QUOTED_LENGTH, quoteInput } from './diagnostics.js';
export { parseElementPath } from './element-scanner.js';
export {
  createDecodedWriter,
  createEncodingCheck,
  type DecodedWriter,
  type EncodingCheck,
} from './encoding-check.js';
export { checkHighWaterMark, checkSnapshotDelay, type StreamOptions } from './engine.js';
export {
  checkFailFastOptions,
  createFailFast,
  type FailFast,
  isViolation,
  prefixCheckDefault,
  violationOf,
} from './fail-fast.js';
export { type InlineCodeSpan, inlineCodeSpans, isFenceLine } from './fence.js';
export { aiSdkLine } from './from-ai-sdk.js';
export { JsonScanner, type JsonScannerOptions, SCAN_ERROR, SCAN_MORE, type ScanEvents } from './json-scanner.js';
export { checkJsonlOptions } from './jsonl-decoder.js';
export {
  checkChoice,
  checkOptionNames,
  closestName,
  describeValue,
  ELEMENT_STREAM_OPTIONS,
  FACTORY_OPTION_NAMES,
  JSONL_STREAM_OPTIONS,
  namesChecked,
  OPTION_NAMES_CHECKED,
  optionNames,
  PARTIAL_STREAM_OPTIONS,
  PROVIDER_STREAM_OPTIONS,
  SALVAGE_STREAM_OPTIONS,
  TOOL_CALL_STREAM_OPTIONS,
} from './option-names.js';
export { TIMER_FLUSH_SLOTS } from './partial-value.js';
export { PrefixChecker, type PrefixCheckOptions } from './prefix-check.js';
export { PROVIDER_DECODER_STATE } from './provider/types.js';
export { internSchema } from './schema-intern.js';
export { formatSchemaErrors } from './schema-validator.js';
export { compileStandardSchema, isStandardSchema, issuePointer, jsonSchemaOf } from './standard-schema.js';
export { checkStructuredOutputOptions } from './structured-output.js';
export { elementSchemaAt, subSchemaAt, subSchemaPointer } from './sub-schemas.js';
export { createUtf8Chunks, type Utf8Chunks } from './utf8-chunks.js';
