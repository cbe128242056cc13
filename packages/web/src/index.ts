/**
 * @llmjson/web: every llmjson stream as a WHATWG `TransformStream`, for browsers and edge
 * runtimes. The names, options and stream properties are the same as @llmjson/node's
 * (test/types/node-web-surface.test.ts holds the two surfaces to each other).
 *
 * @module index
 */

export {
  type Change,
  COERCION_RULES,
  CONTRACT_VALIDATION_FAILED,
  type CoerceOption,
  CoercionRule,
  ConfigurationError,
  ConfigurationErrorCode,
  ContractViolationError,
  DEFAULT_IDLE_TIMEOUT_MS,
  type DeepPartial,
  type Diagnostic,
  DiagnosticReason,
  type ElementRecord,
  type ElementStats,
  elementPrefixCheck,
  type FailFastOptions,
  fromAiSdk,
  fromAsync,
  type JsonlRecord,
  type JsonlStats,
  type JsonSchema,
  LlmjsonError,
  type LlmOutput,
  type LlmResult,
  linePrefixCheck,
  type OpenAICompatibleOptions,
  type OpenAICompatibleRequest,
  type OpenAICompatibleResult,
  openAICompatible,
  type ProviderError,
  ProviderFormat,
  ProviderHttpError,
  type ProviderInput,
  type ProviderMetadata,
  ProviderTimeoutCode,
  ProviderTimeoutError,
  type SalvagedValue,
  type SalvageSource,
  type SalvageStats,
  /**
   * The schema cache. Streams compile a schema (validator, prefix rules, sub-schemas) once per
   * content, so a schema parsed from a file per request, or spread from a base object, compiles
   * once, not per stream. `schemaCache.limit` bounds the distinct contents kept (default
   * SCHEMA_CACHE_LIMIT, 1000; least recently used out first; a non-negative integer, else a
   * ConfigurationError OPTION_INVALID), 0 keeps compiled schemas per schema object only;
   * `schemaCache.size` counts the contents held and `schemaCache.clear()` forgets them. A schema
   * object is read once: changing it after a stream used it changes nothing.
   */
  SCHEMA_CACHE_LIMIT,
  type SchemaInput,
  type SchemaValue,
  schemaCache,
  type ToolCall,
  type ToolCallInfo,
  type ToolCallState,
  type ToolCallStats,
  type ToolCallUpdate,
  type ToolSchemas,
  type Usage,
  withCoercion,
} from '@llmjson/core';
export { createElementStream, type ElementStream, type ElementStreamOptions } from './element-stream.js';
export {
  type EventStreamInput,
  fromEventStream,
} from './from-event-stream.js';
export { fromJsonPatch, type JsonPatchOperation, toJsonPatch, toJsonPointer } from './json-patch.js';
export { createJsonlStream, type JsonlStream, type JsonlStreamOptions } from './jsonl-stream.js';
export {
  createLiveJson,
  createLiveJsonl,
  type LiveBody,
  type LiveController,
  type LiveJson,
  type LiveJsonl,
  type LiveJsonlOptions,
  type LiveJsonlState,
  type LiveJsonOptions,
  type LiveJsonState,
  type LiveSource,
  type LiveStatus,
} from './live-source.js';
export {
  createPartialStore,
  type PartialStore,
  type PartialStoreState,
  type StoreSource,
} from './partial-store.js';
export {
  createPartialStream,
  type PartialStream,
  type PartialStreamOptions,
  type PartialUpdate,
} from './partial-stream.js';
export { createProviderStream, type ProviderStream, type ProviderStreamOptions } from './provider-stream.js';
export { readableFrom } from './readable-stream-from.js';
export { createSalvageStream, type SalvageStream, type SalvageStreamOptions } from './salvage-stream.js';
export { type ChangeItem, type ChangeSource, type EventStream, toEventStream } from './to-event-stream.js';
export {
  createToolCallStream,
  type ToolCallItem,
  type ToolCallStream,
  type ToolCallStreamOptions,
} from './tool-call-stream.js';
export {
  type FromEventStreamOptions,
  type PartialStoreOptions,
  type ToEventStreamOptions,
  WIRE_CONTENT_TYPES,
  WIRE_FORMAT_VERSION,
  type WireChanges,
  type WireDiagnostic,
  type WireEnd,
  type WireEvent,
  type WireFormat,
  type WireStats,
} from './wire-format.js';
