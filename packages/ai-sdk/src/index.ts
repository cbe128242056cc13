/**
 * @llmjson/ai-sdk: llmjson inside the Vercel AI SDK (`ai` 7). Outputs for `streamText` and
 * `generateText` (`object`, `array`, `jsonl`) that implement the AI SDK's public `Output`
 * interface, and a `fullStream` transform for `experimental_transform`. The AI SDK is a peer
 * dependency; nothing here runs at import (tree-shakable).
 */

export type { DeepPartial, Diagnostic } from '@llmjson/core';
export { ARRAY_OUTPUT_OPTIONS, type ArrayOutputOptions, array } from './array-output.js';
export { JSONL_OUTPUT_OPTIONS, type JsonlOutputOptions, jsonl } from './jsonl-output.js';
export { OBJECT_OUTPUT_OPTIONS, type ObjectOutputOptions, object } from './object-output.js';
export type { OutputRunOptions } from './output-run.js';
export type { OutputSchema, OutputValue } from './output-schema.js';
export {
  type LlmjsonStreamTransform,
  PARTIAL_TRANSFORM_OPTIONS,
  type PartialTransformOptions,
  PartKind,
  partialObjectTransform,
} from './partial-transform.js';
