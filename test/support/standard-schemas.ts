/**
 * fixtures/schemas/definition-relationship.schema.json written with each Standard Schema
 * vendor the project tests against (zod 4, valibot 1, arktype 2): the same values accepted,
 * dispatched on `type`. valibot has no JSON Schema export of its own; `valibotExported` is the
 * same schema given one by `@valibot/to-json-schema`'s `toStandardJsonSchema`.
 */
import { readFileSync } from 'node:fs';
import type { JsonSchema, StandardSchemaV1 } from '@llmjson/core';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';

export const definitionRelationshipJsonSchema = JSON.parse(
  readFileSync(new URL('../../fixtures/schemas/definition-relationship.schema.json', import.meta.url), 'utf8'),
) as JsonSchema;

export const definitionRelationshipZod = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('definition'), entity: z.string().min(1), definition: z.string().min(1) }),
  z.strictObject({
    type: z.literal('relationship'),
    subject: z.string().min(1),
    predicate: z.string().min(1),
    object: z.string().min(1),
    'object-entity': z.boolean().optional(),
  }),
]);

const nonEmpty = () => v.pipe(v.string(), v.minLength(1));

export const definitionRelationshipValibot = v.variant('type', [
  v.strictObject({ type: v.literal('definition'), entity: nonEmpty(), definition: nonEmpty() }),
  v.strictObject({
    type: v.literal('relationship'),
    subject: nonEmpty(),
    predicate: nonEmpty(),
    object: nonEmpty(),
    'object-entity': v.optional(v.boolean()),
  }),
]);

export const definitionRelationshipValibotExported = toStandardJsonSchema(definitionRelationshipValibot);

export const definitionRelationshipArktype = type({
  '+': 'reject',
  type: "'definition'",
  entity: 'string > 0',
  definition: 'string > 0',
}).or({
  '+': 'reject',
  type: "'relationship'",
  subject: 'string > 0',
  predicate: 'string > 0',
  object: 'string > 0',
  'object-entity?': 'boolean',
});

/** Every vendor's schema, by name; `dispatches` is false where no JSON Schema export exists. */
export const definitionRelationshipVendors: readonly {
  readonly name: string;
  readonly schema: StandardSchemaV1;
  readonly dispatches: boolean;
}[] = [
  { name: 'zod 4', schema: definitionRelationshipZod, dispatches: true },
  { name: 'valibot 1 with toStandardJsonSchema', schema: definitionRelationshipValibotExported, dispatches: true },
  { name: 'valibot 1 (no JSON Schema export)', schema: definitionRelationshipValibot, dispatches: false },
  { name: 'arktype 2', schema: definitionRelationshipArktype, dispatches: true },
];
