export {
  ConfigurationError,
  ConfigurationErrorCode,
  type Diagnostic,
  DiagnosticReason,
  type JsonlRecord,
  type JsonlStats,
  type JsonSchema,
  type SalvagedValue,
  type SalvageSource,
} from '@llmjson/core';
export { createJsonlStream, type JsonlStream, type JsonlStreamOptions } from './jsonl-stream.js';
export { createSalvageStream, type SalvageStream, type SalvageStreamOptions } from './salvage-stream.js';
