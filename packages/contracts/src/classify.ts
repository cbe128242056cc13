/**
 * Classifies one recorded model answer for evaluation runs (`llmjson batch`): is it usable as
 * its response type promised, usable only after salvage, cut off, unusable, or empty?
 *
 * - `empty`: no text (or only whitespace).
 * - `valid`: the answer is what the mode asks for — json: the whole text is one document
 *   matching the schema; jsonl: at least one valid line and no cut last line (dropped lines
 *   are counted in `diagnostics`, as the JSONL response type specifies); elements: an array
 *   whose elements all match, none cut (one that fails makes the answer `invalid`, with the
 *   valid ones in `values`); salvage: at least one value.
 * - `salvaged`: not valid as it stands, but salvage (fences, prose, inline code, the documented
 *   recoveries such as a trailing comma; schema-directed) finds what the schema asks for. Off
 *   with `salvage: false`.
 * - A value nested deeper than 512 levels is never usable: salvage and every mode's engine
 *   report it (`too-deep`) instead of returning it, so classifying never throws on one.
 * - `truncated`: the answer was cut off (the finish reason says so, or the text ends inside a
 *   value). `values` holds what is still usable: complete JSONL lines or array elements.
 * - `invalid`: none of the above.
 */

import {
  ConfigurationError,
  ConfigurationErrorCode,
  type Diagnostic,
  extractAllJson,
  extractElements,
  type JsonSchema,
  parseJsonl,
} from '@llmjson/core';
import { NODE_DEFAULTS } from '@llmjson/core/ajv';
import {
  checkChoice,
  checkOptionNames,
  JsonScanner,
  namesChecked,
  quoteInput,
  SCAN_MORE,
} from '@llmjson/core/internal';
import { CONTRACTS_OPTION_NAMES } from './option-names.js';
import { isTruncated, parseJsonResponse } from './responses.js';

export type ClassifyMode = 'json' | 'jsonl' | 'elements' | 'salvage';
export type AnswerStatus = 'valid' | 'salvaged' | 'truncated' | 'invalid' | 'empty';

export interface ClassifyOptions {
  readonly mode: ClassifyMode;
  readonly schema?: JsonSchema | undefined;
  readonly discriminator?: string | false | undefined;
  /** Fall back to salvage when the answer is not valid as it stands. Default true. */
  readonly salvage?: boolean | undefined;
  /** The provider's finish reason, when the record has one. */
  readonly finishReason?: string | undefined;
}

export interface Classification {
  readonly status: AnswerStatus;
  /** The usable values (the document for json; the objects or elements otherwise). */
  readonly values: readonly unknown[];
  /** Diagnostics of the mode's parse (dropped lines, schema failures, the cut). */
  readonly diagnostics: readonly Diagnostic[];
}

/** True when the text's first JSON document starts but never ends. */
function endsInsideDocument(text: string): boolean {
  const first = text.search(/[[{]/);
  if (first < 0) return false;
  const scanner = new JsonScanner();
  return scanner.scan(text, first) === SCAN_MORE;
}

const MODES: ReadonlySet<string> = new Set<ClassifyMode>(['json', 'jsonl', 'elements', 'salvage']);

export function classifyResponse(text: string, options: ClassifyOptions): Classification {
  checkOptionNames('classifyResponse', options, CONTRACTS_OPTION_NAMES.classifyResponse);
  checkChoice('salvage', options.salvage, [true, false]);
  // A mode from outside the types (a flag, a record) is named, not answered with nothing.
  if (typeof options.mode !== 'string' || !MODES.has(options.mode)) {
    throw new ConfigurationError(
      ConfigurationErrorCode.optionInvalid,
      `classifyResponse: mode must be "json", "jsonl", "elements" or "salvage", got ${quoteInput(String(options.mode))}`,
    );
  }
  if (text.trim() === '') return { status: 'empty', values: [], diagnostics: [] };
  const schemaOptions = {
    compileJsonSchema: NODE_DEFAULTS.compileJsonSchema,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    ...(options.discriminator === undefined ? {} : { discriminator: options.discriminator }),
  };
  const salvage = options.salvage !== false;
  const cut = isTruncated(options.finishReason);
  const salvaged = (): Classification | undefined => {
    if (!salvage) return undefined;
    const found = extractAllJson(text, schemaOptions);
    return found.length === 0 ? undefined : { status: 'salvaged', values: found.map((v) => v.value), diagnostics: [] };
  };

  switch (options.mode) {
    case 'json': {
      const strict = parseJsonResponse(text, namesChecked({ ...schemaOptions, tolerate: 'none' as const }));
      if (strict.status === 'succeeded' && !cut) return { status: 'valid', values: [strict.json], diagnostics: [] };
      if (!cut && salvage) {
        const tolerant = parseJsonResponse(text, namesChecked(schemaOptions));
        if (tolerant.status === 'succeeded') {
          // A recovered document (a trailing comma) carries its `recovered` notes.
          return { status: 'salvaged', values: [tolerant.json], diagnostics: tolerant.diagnostics ?? [] };
        }
      }
      if (cut || endsInsideDocument(text)) {
        // A cut array still has its complete elements.
        const elements = extractElements(text, {});
        return { status: 'truncated', values: elements.values, diagnostics: elements.diagnostics };
      }
      return { status: 'invalid', values: [], diagnostics: [] };
    }
    case 'jsonl': {
      const result = parseJsonl(text, schemaOptions);
      const truncated = cut || result.diagnostics.some((d) => d.reason === 'truncated');
      if (result.values.length > 0) {
        return { status: truncated ? 'truncated' : 'valid', values: result.values, diagnostics: result.diagnostics };
      }
      if (truncated) return { status: 'truncated', values: [], diagnostics: result.diagnostics };
      return salvaged() ?? { status: 'invalid', values: [], diagnostics: result.diagnostics };
    }
    case 'elements': {
      const result = extractElements(text, schemaOptions);
      const truncated = cut || result.diagnostics.some((d) => d.reason === 'truncated');
      if (truncated) return { status: 'truncated', values: result.values, diagnostics: result.diagnostics };
      if (result.diagnostics.length === 0) return { status: 'valid', values: result.values, diagnostics: [] };
      // Elements that failed their schema make the answer invalid; the valid ones stay countable.
      if (result.values.length > 0)
        return { status: 'invalid', values: result.values, diagnostics: result.diagnostics };
      return salvaged() ?? { status: 'invalid', values: [], diagnostics: result.diagnostics };
    }
    case 'salvage': {
      const found = extractAllJson(text, schemaOptions);
      if (found.length > 0)
        return { status: cut ? 'truncated' : 'valid', values: found.map((v) => v.value), diagnostics: [] };
      return { status: cut || endsInsideDocument(text) ? 'truncated' : 'invalid', values: [], diagnostics: [] };
    }
  }
}
