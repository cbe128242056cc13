export { LlmjsonError } from '@llmjson/core';
export { type CatalogEntry, type CatalogProblem, type CatalogReport, checkCatalog } from './catalog.js';
export {
  type AnswerStatus,
  type Classification,
  type ClassifyMode,
  type ClassifyOptions,
  classifyResponse,
} from './classify.js';
export {
  type AttemptFailure,
  CORRECTION_PLACEHOLDERS,
  type Correction,
  defaultCorrection,
  MAX_EXCERPT_LENGTH,
  MAX_EXPECTED_LENGTH,
  renderCorrection,
} from './correction.js';
export {
  canonicalJson,
  createEnvelope,
  type Envelope,
  type EnvelopeAttempt,
  type EnvelopeError,
  type EnvelopeInput,
  type EnvelopeResult,
  type EnvelopeSchema,
  writeOutputFile,
} from './envelope.js';
export {
  ContractConfigurationError,
  ContractErrorCode,
  type ContractErrorDetails,
  type ContractFailure,
  ContractValidationError,
  type ContractViolation,
  FailureDetail,
  type IncompleteAnswer,
} from './errors.js';
export type { Llm, LlmMessage, LlmOutput, LlmRequest, LlmResult, ResponseType } from './llm.js';
export {
  checkPromptConfig,
  checkVariables,
  type PromptConfig,
  type PromptEntry,
  parseVariables,
  renderTemplate,
  type Variables,
} from './prompt-config.js';
export {
  type CallOptions,
  createPromptManager,
  type PromptManager,
  type PromptManagerOptions,
  type PromptStream,
  type PromptTypes,
  type PromptTypesOf,
  type PromptValue,
  type UntypedPrompts,
} from './prompt-manager.js';
export {
  isTruncated,
  type JsonlOutcome,
  type JsonOutcome,
  type JsonSuccess,
  type ParseJsonOptions,
  parseJsonlResponse,
  parseJsonResponse,
} from './responses.js';
export {
  BUILTIN_SCHEMA_ROOT,
  compileContractSchema,
  createSchemaRegistry,
  type DefaultRootsOptions,
  defaultSchemaRoots,
  type ResolvedSchema,
  readSchemaFile,
  type SchemaRegistry,
  type SchemaRegistryOptions,
  type SchemaRoot,
  type SchemaRootKind,
  schemaRefPath,
} from './schema-registry.js';
