export {
  type Diagnostic,
  DiagnosticReason,
  excerptAround,
  type SchemaError,
} from './diagnostics.js';
export { isFenceLine } from './fence.js';
export { JsonScanner, SCAN_ERROR, SCAN_MORE } from './json-scanner.js';
export {
  checkJsonlOptions,
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
export {
  type CompiledSchema,
  type CompileOptions,
  ConfigurationError,
  ConfigurationErrorCode,
  compileSchema,
  formatSchemaErrors,
  type JsonSchema,
  type ValidationResult,
} from './schema-validator.js';
