export {
  ConfigurationError,
  ConfigurationErrorCode,
  type Diagnostic,
  DiagnosticReason,
  type JsonlRecord,
  type JsonlStats,
  type JsonSchema,
} from '@llmjson/core';
export { createJsonlStream, type JsonlStream, type JsonlStreamOptions } from './jsonl-stream.js';
