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
export { excerptAround, MAX_QUOTED_LENGTH, quoteInput, textOfValue } from './diagnostics/diagnostics.js';
export { ELEMENT_STREAM_OPTIONS, parseElementPath } from './engines/element-scanner.js';
export {
  createDecodedWriter,
  createEncodingCheck,
  type DecodedWriter,
  type EncodingCheck,
} from './engines/encoding-check.js';
export { checkHighWaterMark, checkSnapshotDelay, type StreamOptions } from './engines/engine.js';
export { checkJsonlOptions, JSONL_STREAM_OPTIONS } from './engines/jsonl-decoder.js';
export { PARTIAL_STREAM_OPTIONS, TIMER_FLUSH_SLOTS } from './engines/partial-value.js';
export { SALVAGE_STREAM_OPTIONS } from './engines/salvage-scanner.js';
export {
  checkChoice,
  checkOptionNames,
  closestName,
  describeValue,
  namesChecked,
  OPTION_NAMES_CHECKED,
  optionNames,
} from './options/option-checks.js';
export {
  checkFailFastOptions,
  createFailFast,
  type FailFast,
  isViolation,
  prefixCheckDefault,
  violationOf,
} from './prefix/fail-fast.js';
export { PrefixChecker, type PrefixCheckOptions } from './prefix/prefix-check.js';
export { PROVIDER_STREAM_OPTIONS } from './provider/decoder.js';
export { TOOL_CALL_STREAM_OPTIONS } from './provider/tool-calls.js';
export { PROVIDER_DECODER_STATE } from './provider/types.js';
export { coerceToSchema } from './schema/coerce.js';
export { coercionRules } from './schema/coercion-options.js';
export { internSchema } from './schema/schema-intern.js';
export { formatSchemaErrors } from './schema/schema-validator.js';
export { compileStandardSchema, isStandardSchema, issuePointer, jsonSchemaOf } from './schema/standard-schema.js';
export { elementSchemaAt, subSchemaAt, subSchemaPointer } from './schema/sub-schemas.js';
export { depthExceeds, mayExceedDepth } from './syntax/depth.js';
export { JsonScanner, type JsonScannerOptions, SCAN_ERROR, SCAN_MORE, type ScanEvents } from './syntax/json-scanner.js';
export {
  FenceLine,
  type InlineCodeSpan,
  inlineCodeSpans,
  isFenceLine,
  isFenceMarker,
  MAX_FENCE_INDENT,
} from './text/fence.js';
export { createUtf8Chunks, type Utf8Chunks } from './text/utf8-chunks.js';

import { OPENAI_COMPATIBLE_OPTIONS } from './client/openai-compatible.js';
import { ELEMENT_SCANNER_OPTIONS, ELEMENT_STREAM_OPTIONS } from './engines/element-scanner.js';
import { EXTRACT_ALL_JSON_OPTIONS, EXTRACT_JSON_OPTIONS } from './engines/extract-json.js';
import { JSONL_DECODER_OPTIONS, JSONL_STREAM_OPTIONS } from './engines/jsonl-decoder.js';
import { PARTIAL_BUILDER_OPTIONS, PARTIAL_STREAM_OPTIONS } from './engines/partial-value.js';
import { SALVAGE_SCANNER_OPTIONS, SALVAGE_STREAM_OPTIONS } from './engines/salvage-scanner.js';
import { PROVIDER_DECODER_OPTIONS, PROVIDER_STREAM_OPTIONS } from './provider/decoder.js';
import { TOOL_CALL_DECODER_OPTIONS, TOOL_CALL_STREAM_OPTIONS } from './provider/tool-calls.js';

/**
 * Every factory's option names, by factory: for the docs test (docs/guide/options.md) and for
 * tools, never for the factories themselves (each checks its own list, kept beside its options
 * type), so that a bundle of one stream does not carry the others' lists.
 */
export const FACTORY_OPTION_NAMES: Readonly<Record<string, readonly string[]>> = {
  createJsonlDecoder: JSONL_DECODER_OPTIONS,
  createPartialBuilder: PARTIAL_BUILDER_OPTIONS,
  createElementScanner: ELEMENT_SCANNER_OPTIONS,
  createSalvageScanner: SALVAGE_SCANNER_OPTIONS,
  createProviderDecoder: PROVIDER_DECODER_OPTIONS,
  createToolCallDecoder: TOOL_CALL_DECODER_OPTIONS,
  extractAllJson: EXTRACT_ALL_JSON_OPTIONS,
  extractJson: EXTRACT_JSON_OPTIONS,
  openAICompatible: OPENAI_COMPATIBLE_OPTIONS,
  createJsonlStream: JSONL_STREAM_OPTIONS,
  createPartialStream: PARTIAL_STREAM_OPTIONS,
  createElementStream: ELEMENT_STREAM_OPTIONS,
  createSalvageStream: SALVAGE_STREAM_OPTIONS,
  createProviderStream: PROVIDER_STREAM_OPTIONS,
  createToolCallStream: TOOL_CALL_STREAM_OPTIONS,
};
