/**
 * Catalog check: before any model is called, every prompt of a configuration is checked —
 * its shape, its template, and for JSON and JSONL prompts its schema (declared, resolvable,
 * UTF-8 JSON, valid JSON Schema; or, given in code, a usable Standard Schema such as zod's).
 * Every problem is returned, each with a code and the prompt id.
 */

import { isStandardSchema, quoteInput } from '@llmjson/core/internal';
import { ContractConfigurationError, ContractErrorCode } from './errors.js';
import { configProblems, type PromptConfig, type PromptEntry } from './prompt-config.js';
import { compileContractSchema, type SchemaRegistry, type SchemaRootKind } from './schema-registry.js';

export interface CatalogProblem {
  readonly code: ContractErrorCode;
  readonly promptId?: string;
  readonly ref?: string;
  readonly file?: string;
  readonly message: string;
}

export interface CatalogEntry {
  readonly promptId: string;
  readonly responseType: 'text' | 'json' | 'jsonl';
  /** `inline`, the reference, or undefined for a text prompt without a schema. */
  readonly schema?: 'inline' | string;
  /** For an inline Standard Schema: its vendor (`zod`, `valibot`, `arktype`…). */
  readonly vendor?: string;
  /** For a reference: the file and the root that won. */
  readonly file?: string;
  readonly root?: SchemaRootKind;
}

export interface CatalogReport {
  readonly ok: boolean;
  readonly problems: readonly CatalogProblem[];
  /** The prompts that passed, with where their schema came from. */
  readonly prompts: readonly CatalogEntry[];
}

function problemOf(error: unknown, promptId: string): CatalogProblem {
  if (error instanceof ContractConfigurationError) {
    return {
      code: error.code,
      promptId,
      ...(error.ref === undefined ? {} : { ref: error.ref }),
      ...(error.file === undefined ? {} : { file: error.file }),
      message: error.message,
    };
  }
  throw error;
}

/** Checks every prompt of a configuration without calling any model. */
export function checkCatalog(config: unknown, registry: SchemaRegistry): CatalogReport {
  const problems: CatalogProblem[] = configProblems(config).map((p) => ({
    code: ContractErrorCode.promptInvalid,
    ...(p.promptId === undefined ? {} : { promptId: p.promptId }),
    message: p.message,
  }));
  const prompts: CatalogEntry[] = [];
  const shapeBroken = new Set(problems.map((p) => p.promptId));
  const entries =
    typeof config === 'object' && config !== null && typeof (config as PromptConfig).prompts === 'object'
      ? Object.entries((config as PromptConfig).prompts ?? {})
      : [];
  for (const [promptId, entry] of entries) {
    if (shapeBroken.has(promptId)) continue;
    const found = checkEntry(promptId, entry, registry);
    if ('code' in found) problems.push(found);
    else prompts.push(found);
  }
  return { ok: problems.length === 0, problems, prompts };
}

function checkEntry(promptId: string, entry: PromptEntry, registry: SchemaRegistry): CatalogEntry | CatalogProblem {
  const responseType = entry['response-type'] ?? 'text';
  try {
    const dispatch = entry.discriminator === undefined ? {} : { discriminator: entry.discriminator };
    if (entry.schema_ref !== undefined) {
      const resolved = registry.resolve(entry.schema_ref);
      // With the prompt's discriminator, as the runner will compile it.
      compileContractSchema(resolved.schema, `schema file ${quoteInput(resolved.file)}`, dispatch, {
        ref: entry.schema_ref,
        file: resolved.file,
        promptId,
      });
      return { promptId, responseType, schema: entry.schema_ref, file: resolved.file, root: resolved.root.kind };
    }
    if (entry.schema !== undefined) {
      compileContractSchema(entry.schema, `the inline schema of prompt "${quoteInput(promptId)}"`, dispatch, {
        promptId,
      });
      return isStandardSchema(entry.schema)
        ? { promptId, responseType, schema: 'inline', vendor: String(entry.schema['~standard'].vendor) }
        : { promptId, responseType, schema: 'inline' };
    }
    if (responseType !== 'text') {
      return {
        code: ContractErrorCode.schemaRefMissing,
        promptId,
        message: `prompt "${quoteInput(promptId)}" has response-type "${quoteInput(String(responseType))}" but declares no schema: add "schema" (inline) or "schema_ref" (a dotted reference)`,
      };
    }
    return { promptId, responseType };
  } catch (error) {
    return problemOf(error, promptId);
  }
}
