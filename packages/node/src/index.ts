export type { LlmOutput, LlmResult } from '@llmjson/core';
export {
  type Change,
  COERCION_RULES,
  CONTRACT_VALIDATION_FAILED,
  type CoerceOption,
  CoercionRule,
  ConfigurationError,
  ConfigurationErrorCode,
  ContractViolationError,
  type DeepPartial,
  type Diagnostic,
  DiagnosticReason,
  type ElementRecord,
  elementPrefixCheck,
  type FailFastOptions,
  fromAiSdk,
  fromAsync,
  type JsonlRecord,
  type JsonlStats,
  type JsonSchema,
  LlmjsonError,
  linePrefixCheck,
  type ProviderError,
  ProviderFormat,
  type ProviderInput,
  type ProviderMetadata,
  type SalvagedValue,
  type SalvageSource,
  type SchemaInput,
  type SchemaValue,
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
export { createJsonlStream, type JsonlStream, type JsonlStreamOptions } from './jsonl-stream.js';
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
  createPartialStream,
  type PartialStream,
  type PartialStreamOptions,
  type PartialUpdate,
} from './partial-stream.js';
export { createProviderStream, type ProviderStream, type ProviderStreamOptions } from './provider-stream.js';
export { readableFrom } from './readable-from.js';
export { createSalvageStream, type SalvageStream, type SalvageStreamOptions } from './salvage-stream.js';
export {
  createToolCallStream,
  type ToolCallItem,
  type ToolCallStream,
  type ToolCallStreamOptions,
} from './tool-call-stream.js';
