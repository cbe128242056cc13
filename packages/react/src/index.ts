/**
 * @llmjson/react: React hooks over @llmjson/web's live controllers — `useJsonStream` for one JSON
 * answer (the value so far, typed by the schema), `useJsonlStream` for a JSONL answer (the items
 * so far). React 18 and 19; the state is read with `useSyncExternalStore`.
 *
 * @module index
 */

export type {
  DeepPartial,
  Diagnostic,
  LiveSource,
  LiveStatus,
  SchemaInput,
  SchemaValue,
  WireEnd,
} from '@llmjson/web';
export {
  type LiveHookKey,
  type UseJsonlStreamOptions,
  type UseJsonlStreamResult,
  type UseJsonStreamOptions,
  type UseJsonStreamResult,
  useJsonlStream,
  useJsonStream,
} from './use-json-stream.js';
