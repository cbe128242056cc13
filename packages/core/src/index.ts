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

export {
  COERCION_RULES,
  type CoerceOption,
  type Coercer,
  type CoercionFix,
  type CoercionOptions,
  type CoercionResult,
  CoercionRule,
  MAX_COERCION_DEPTH,
  withCoercion,
} from './coerce.js';
export { DEFAULT_MAX_DEPTH } from './depth.js';
export {
  type Diagnostic,
  DiagnosticReason,
  ERRORS_OMITTED_KEYWORD,
  MAX_SCHEMA_ERRORS,
  type SchemaError,
} from './diagnostics.js';
export {
  type ElementPrefixCheck,
  type ElementPrefixFactory,
  type ElementPrefixSetup,
  elementPrefixCheck,
} from './element-prefix.js';
export {
  createElementScanner,
  type ElementOptions,
  type ElementRecord,
  type ElementScanner,
  type ElementSink,
  type ElementStats,
  extractElements,
} from './element-scanner.js';
export type { DiagnosticCounts, Engine, ValidatorOptions } from './engine.js';
export { LlmjsonError } from './errors.js';
export { type ExtractJsonOptions, type ExtractOptions, extractAllJson, extractJson } from './extract-json.js';
export {
  type Abortable,
  CONTRACT_VALIDATION_FAILED,
  ContractViolationError,
  type FailFastOptions,
} from './fail-fast.js';
export { fromAiSdk } from './from-ai-sdk.js';
export { type AsyncSource, fromAsync, type ReadableStreamLike } from './from-async.js';
export {
  createJsonlDecoder,
  DEFAULT_MAX_LINE_LENGTH,
  type JsonlDecoder,
  type JsonlOptions,
  type JsonlRecord,
  type JsonlResult,
  type JsonlSink,
  type JsonlStats,
  type JsonlValueInfo,
  parseJsonl,
} from './jsonl-decoder.js';
export { type LinePrefixCheck, type LinePrefixFactory, linePrefixCheck } from './jsonl-prefix.js';
export type { LlmOutput, LlmResult } from './llm-result.js';
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  type OpenAICompatibleOptions,
  type OpenAICompatibleRequest,
  type OpenAICompatibleResult,
  openAICompatible,
  ProviderHttpError,
  ProviderTimeoutCode,
  ProviderTimeoutError,
} from './openai-compatible.js';
export {
  applyChanges,
  type Change,
  createPartialBuilder,
  type DeepPartial,
  type PartialBuilder,
  type PartialOptions,
  type PartialSink,
  type PartialStats,
  type PathSegment,
} from './partial-value.js';
export type { PrefixPathSegment, PrefixViolation } from './prefix-check.js';
export { createProviderDecoder } from './provider/decoder.js';
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
export {
  createSalvageScanner,
  DEFAULT_MAX_CANDIDATE_LENGTH,
  type SalvagedValue,
  type SalvageOptions,
  type SalvageScanner,
  type SalvageSink,
  type SalvageSource,
  type SalvageStats,
} from './salvage-scanner.js';
export { SCHEMA_CACHE_LIMIT, schemaCache } from './schema-intern.js';
export {
  type CompiledSchema,
  type CompileOptions,
  ConfigurationError,
  ConfigurationErrorCode,
  type JsonSchema,
  type JsonSchemaCompiler,
  type SchemaWarning,
  type ValidationResult,
} from './schema-validator.js';
export type { SchemaInput, SchemaValue, StandardSchemaV1 } from './standard-schema.js';
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
} from './structured-output.js';
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
} from './tool-calls.js';
