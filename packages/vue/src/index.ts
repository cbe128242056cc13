/**
 * @llmjson/vue: Vue 3 composables over @llmjson/web's live controllers. `useJsonStream` shows one
 * JSON answer as it streams (typed by its schema, `DeepPartial` until whole); `useJsonlStream`
 * shows a JSONL answer item by item. Vue is a peer dependency; nothing here touches `window` when
 * it loads or on the server.
 *
 * @module index
 */

export type { DeepPartial, Diagnostic, SchemaInput, SchemaValue } from '@llmjson/core';
export type { LiveSource, LiveStatus, WireEnd } from '@llmjson/web';
export type { LiveSourceInput } from './live-binding.js';
export {
  USE_JSON_STREAM_OPTIONS,
  type UseJsonStream,
  type UseJsonStreamOptions,
  useJsonStream,
} from './use-json-stream.js';
export {
  USE_JSONL_STREAM_OPTIONS,
  type UseJsonlStream,
  type UseJsonlStreamOptions,
  useJsonlStream,
} from './use-jsonl-stream.js';
