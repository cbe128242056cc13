/**
 * Plain ajv 8, as a user who validates with it directly would set it up: the reference verdict
 * that llmjson must reproduce on "the schemas users already have".
 *
 * One instance per schema, chosen by `$schema` the way ajv's own documentation does: draft-04
 * through `ajv-draft-04`, draft-06 through the draft-07 class with the draft-06 meta-schema
 * added, 2019-09 and 2020-12 through `Ajv2019` / `Ajv2020`, anything else (or none) draft-07.
 * `strict: false` and `allErrors: true`, formats from ajv-formats, and nothing of llmjson's
 * hardening (linear-time regexes, cycle checks): that is what makes it the reference and not a
 * second copy of the code under test. Its logger is silenced (real schemas name formats
 * ajv-formats lacks, which ajv ignores with a warning per compile).
 */
import { createRequire } from 'node:module';
import { Ajv, type AnySchema, type AnySchemaObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';

// ajv publishes the draft-06 meta-schema as a JSON file: read it as Node does (no JSON modules in the test tsconfig).
const draft06 = createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-06.json') as AnySchemaObject;

type AddFormats = (ajv: Ajv) => Ajv;
// Both are CommonJS: the default export arrives as the value itself or wrapped in `default`.
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);
type AjvClass = new (options: Options) => Ajv;
const AjvDraft04: AjvClass =
  (AjvDraft04Module as unknown as { default?: AjvClass }).default ?? (AjvDraft04Module as unknown as AjvClass);

/** The dialect a schema declares, as the reference reads `$schema` (`draft-07` when absent or unknown). */
export type Dialect = 'draft-04' | 'draft-06' | 'draft-07' | '2019-09' | '2020-12';

export function dialectOf(schema: unknown): Dialect {
  const declared =
    typeof schema === 'object' && schema !== null && typeof (schema as { $schema?: unknown }).$schema === 'string'
      ? (schema as { $schema: string }).$schema
      : '';
  if (/json-schema\.org\/draft-04\/schema/.test(declared)) return 'draft-04';
  if (/json-schema\.org\/draft-06\/schema/.test(declared)) return 'draft-06';
  if (/json-schema\.org\/draft\/2019-09\/schema/.test(declared)) return '2019-09';
  if (/json-schema\.org\/draft\/2020-12\/schema/.test(declared)) return '2020-12';
  return 'draft-07';
}

/** A fresh plain-ajv instance for `dialect`. */
export function referenceAjv(dialect: Dialect): Ajv {
  const options: Options = { strict: false, allErrors: true, logger: false };
  let ajv: Ajv;
  switch (dialect) {
    case 'draft-04':
      ajv = new AjvDraft04(options);
      break;
    case 'draft-06':
      ajv = new Ajv(options);
      ajv.addMetaSchema(draft06);
      break;
    case '2019-09':
      ajv = new (Ajv2019 as unknown as AjvClass)(options);
      break;
    case '2020-12':
      ajv = new (Ajv2020 as unknown as AjvClass)(options);
      break;
    case 'draft-07':
      ajv = new Ajv(options);
      break;
  }
  addFormats(ajv);
  return ajv;
}

/** What plain ajv makes of a schema: a validator, or the message it refused the schema with. */
export type Reference =
  | { readonly compiled: true; readonly valid: (data: unknown) => boolean }
  | { readonly compiled: false; readonly refusal: string };

/** Compiles `schema` with plain ajv; a validator that throws on data counts as rejecting it. */
export function reference(schema: unknown): Reference {
  let validate: ValidateFunction;
  try {
    validate = referenceAjv(dialectOf(schema)).compile(schema as AnySchema);
  } catch (error) {
    return { compiled: false, refusal: error instanceof Error ? error.message : String(error) };
  }
  return {
    compiled: true,
    valid: (data) => {
      try {
        return validate(data) === true;
      } catch {
        return false;
      }
    },
  };
}
