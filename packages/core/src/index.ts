/**
 * `@llmjson/core`: the platform-neutral engines (JSONL decoding, salvage, array elements,
 * partial values, provider and tool-call decoders, the validator seam) and their one-shot
 * functions, with no Node or DOM types and no I/O. Only what a user calls, passes or names is
 * exported here; the plumbing the other packages share is `@llmjson/core/internal`
 * (docs/decisions/025-public-and-internal-core.md). JSON Schema through ajv is its own entry,
 * `@llmjson/core/ajv`, so a bundle that never compiles a JSON Schema carries no ajv.
 *
 * @module index
 */

export type { StandardSchemaV1 } from '@standard-schema/spec';
export { fromAiSdk } from './client/from-ai-sdk.js';
export { type AsyncSource, fromAsync, type ReadableStreamLike } from './client/from-async.js';
export type { LlmOutput, LlmResult } from './client/llm-result.js';
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  type OpenAICompatibleOptions,
  type OpenAICompatibleRequest,
  type OpenAICompatibleResult,
  openAICompatible,
  ProviderHttpError,
  ProviderTimeoutCode,
  ProviderTimeoutError,
} from './client/openai-compatible.js';
export {
  DEFAULT_STRUCTURED_OUTPUT_NAME,
  type ProviderJsonSchema,
  STRICT_UNSUPPORTED_KEYWORDS,
  type StrictSchemaProblem,
  type StructuredOutputFields,
  type StructuredOutputOptions,
  StructuredOutputProvider,
  strictSchemaProblems,
  structuredOutput,
} from './client/structured-output.js';
export { ConfigurationError, ConfigurationErrorCode } from './diagnostics/configuration-error.js';
export {
  type Diagnostic,
  DiagnosticReason,
  ERRORS_OMITTED_KEYWORD,
  MAX_SCHEMA_ERRORS,
  type SchemaError,
} from './diagnostics/diagnostics.js';
export { LlmjsonError } from './diagnostics/errors.js';
export {
  createElementScanner,
  type ElementOptions,
  type ElementRecord,
  type ElementScanner,
  type ElementSink,
  type ElementStats,
  extractElements,
} from './engines/element-scanner.js';
export type { DiagnosticCounts, Engine, ValidatorOptions } from './engines/engine.js';
export { type ExtractJsonOptions, type ExtractOptions, extractAllJson, extractJson } from './engines/extract-json.js';
export {
  createJsonlDecoder,
  type JsonlDecoder,
  type JsonlOptions,
  type JsonlRecord,
  type JsonlResult,
  type JsonlSink,
  type JsonlStats,
  type JsonlValueInfo,
  parseJsonl,
} from './engines/jsonl-decoder.js';
export { applyChanges, type Change, type PathSegment } from './engines/partial-changes.js';
export {
  createPartialBuilder,
  type DeepPartial,
  type PartialBuilder,
  type PartialOptions,
  type PartialSink,
  type PartialStats,
} from './engines/partial-value.js';
export type { SalvagedValue, SalvageSink, SalvageSource } from './engines/salvage-delivery.js';
export {
  createSalvageScanner,
  type SalvageOptions,
  type SalvageScanner,
  type SalvageStats,
} from './engines/salvage-scanner.js';
export {
  type ElementPrefixCheck,
  type ElementPrefixFactory,
  type ElementPrefixSetup,
  elementPrefixCheck,
} from './prefix/element-prefix.js';
export {
  type Abortable,
  CONTRACT_VALIDATION_FAILED,
  ContractViolationError,
  type FailFastOptions,
} from './prefix/fail-fast.js';
export { type LinePrefixCheck, type LinePrefixFactory, linePrefixCheck } from './prefix/jsonl-prefix.js';
export type { PrefixPathSegment, PrefixViolation } from './prefix/prefix-check.js';
export { createProviderDecoder } from './provider/decoder.js';
export {
  createToolCallDecoder,
  type ToolArguments,
  type ToolCallDecoder,
  type ToolCallOptions,
  type ToolCallSink,
  type ToolCallState,
  type ToolCallStats,
  type ToolCallUpdate,
  type ToolSchemas,
} from './provider/tool-calls.js';
export {
  type ProviderDecoder,
  type ProviderDecoderOptions,
  type ProviderError,
  ProviderFormat,
  type ProviderInput,
  type ProviderMetadata,
  type ProviderSink,
  type ProviderStats,
  type ToolCall,
  type ToolCallInfo,
  type Usage,
} from './provider/types.js';
export { type CoercionResult, MAX_COERCION_DEPTH, withCoercion } from './schema/coerce.js';
export type { CoerceOption, Coercer, CoercionOptions } from './schema/coercion-options.js';
export { COERCION_RULES, type CoercionFix, CoercionRule } from './schema/coercion-rules.js';
export { SCHEMA_CACHE_LIMIT, schemaCache } from './schema/schema-intern.js';
export type {
  CompiledSchema,
  CompileOptions,
  JsonSchema,
  JsonSchemaCompiler,
  SchemaWarning,
  ValidationResult,
} from './schema/schema-validator.js';
export type { SchemaInput, SchemaValue } from './schema/standard-schema.js';
export { DEFAULT_MAX_DEPTH } from './syntax/depth.js';
export { DEFAULT_MAX_CANDIDATE_LENGTH, DEFAULT_MAX_LINE_LENGTH } from './syntax/limits.js';
