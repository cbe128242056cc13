/**
 * The option names of contracts' factories: one list per factory, held complete against its
 * options type at compile time (`optionNames` from core) and checked by
 * test/docs/options-tables.test.ts against docs/guide/options.md. A name not listed is a
 * ConfigurationError (OPTION_INVALID) naming the closest listed one (decision 031).
 */

import type { JsonlOptions } from '@llmjson/core';
import { optionNames } from '@llmjson/core/internal';
import type { ClassifyOptions } from './classify.js';
import type { CallOptions, PromptManagerOptions } from './prompt-manager.js';
import type { ParseJsonOptions } from './responses.js';
import type { SchemaRegistryOptions } from './schema-registry.js';

export const CONTRACTS_OPTION_NAMES = {
  createPromptManager: optionNames<PromptManagerOptions>()([
    'registry',
    'tolerate',
    'onDiagnostic',
    'failFast',
    'retries',
    'correction',
    'onRetry',
    'coerce',
  ]),
  /** The options of `run`, `invoke` and `stream`. */
  call: optionNames<CallOptions>()(['signal', 'failFast', 'retries', 'correction', 'coerce']),
  parseJsonResponse: optionNames<ParseJsonOptions>()([
    'schema',
    'discriminator',
    'tolerate',
    'finishReason',
    'maxDepth',
    'coerce',
  ]),
  parseJsonlResponse: optionNames<
    Pick<JsonlOptions, 'schema' | 'discriminator' | 'maxLineLength' | 'coerce'> & { finishReason?: unknown }
  >()(['schema', 'discriminator', 'maxLineLength', 'coerce', 'finishReason']),
  classifyResponse: optionNames<ClassifyOptions>()(['mode', 'schema', 'discriminator', 'salvage', 'finishReason']),
  createSchemaRegistry: optionNames<SchemaRegistryOptions>()(['roots', 'cwd', 'env', 'home']),
} as const;
