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

export { aiSdkLine } from './client/from-ai-sdk.js';
export { checkStructuredOutputOptions } from './client/structured-output.js';
export { excerptAround, MAX_QUOTED_LENGTH, quoteInput } from './diagnostics/diagnostics.js';
export { parseElementPath } from './engines/element-scanner.js';
export {
  createDecodedWriter,
  createEncodingCheck,
  type DecodedWriter,
  type EncodingCheck,
} from './engines/encoding-check.js';
export { checkHighWaterMark, checkSnapshotDelay, type StreamOptions } from './engines/engine.js';
export { checkJsonlOptions } from './engines/jsonl-decoder.js';
export { TIMER_FLUSH_SLOTS } from './engines/partial-value.js';
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
} from './options/option-names.js';
export {
  checkFailFastOptions,
  createFailFast,
  type FailFast,
  isViolation,
  prefixCheckDefault,
  violationOf,
} from './prefix/fail-fast.js';
export { PrefixChecker, type PrefixCheckOptions } from './prefix/prefix-check.js';
export { PROVIDER_DECODER_STATE } from './provider/types.js';
export { coerceToSchema, coercionRules } from './schema/coerce.js';
export { internSchema } from './schema/schema-intern.js';
export { formatSchemaErrors } from './schema/schema-validator.js';
export { compileStandardSchema, isStandardSchema, issuePointer, jsonSchemaOf } from './schema/standard-schema.js';
export { elementSchemaAt, subSchemaAt, subSchemaPointer } from './schema/sub-schemas.js';
export { depthExceeds, mayExceedDepth } from './syntax/depth.js';
export { JsonScanner, type JsonScannerOptions, SCAN_ERROR, SCAN_MORE, type ScanEvents } from './syntax/json-scanner.js';
export { type InlineCodeSpan, inlineCodeSpans, isFenceLine } from './text/fence.js';
export { createUtf8Chunks, type Utf8Chunks } from './text/utf8-chunks.js';
