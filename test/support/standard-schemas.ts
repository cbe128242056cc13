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

/** One of the vendors' schemas for a fixture. */
export interface VendorSchema {
  readonly name: string;
  readonly vendor: 'zod' | 'valibot' | 'arktype';
  readonly schema: StandardSchemaV1;
  /** Whether `~standard.jsonSchema` exists: dispatch, elements found through it, partial subtree checks. */
  readonly exported: boolean;
  /**
   * Whether every `pattern` in the export runs in linear time, so that ajv (which compiles the
   * export's sub-schemas, with the linear-time regex engine) accepts it. arktype's
   * `string.date.iso` exports a pattern with a lookahead, which it refuses.
   */
  readonly linearExport: boolean;
}

/** A fixture schema as JSON Schema and as the same schema in every vendor. */
export interface SchemaFamily {
  readonly json: JsonSchema;
  readonly vendors: readonly VendorSchema[];
}

/**
 * zod 4, valibot 1 with and without `toStandardJsonSchema`, arktype 2: the order every family
 * lists them in. `arktypeLinearExport` is false where the arktype schema uses `string.date.iso`.
 */
function vendorsOf(
  zod: StandardSchemaV1,
  valibot: v.GenericSchema,
  arktype: StandardSchemaV1,
  arktypeLinearExport = true,
): readonly VendorSchema[] {
  return [
    { name: 'zod 4', vendor: 'zod', schema: zod, exported: true, linearExport: true },
    {
      name: 'valibot 1 with toStandardJsonSchema',
      vendor: 'valibot',
      schema: toStandardJsonSchema(valibot),
      exported: true,
      linearExport: true,
    },
    {
      name: 'valibot 1 (no JSON Schema export)',
      vendor: 'valibot',
      schema: valibot,
      exported: false,
      linearExport: true,
    },
    { name: 'arktype 2', vendor: 'arktype', schema: arktype, exported: true, linearExport: arktypeLinearExport },
  ];
}

function loadJsonSchema(path: string): JsonSchema {
  return JSON.parse(readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), 'utf8')) as JsonSchema;
}

/** fixtures/schemas/definition-relationship.schema.json, as a family (the same schema objects as above). */
export const definitionRelationship: SchemaFamily = {
  json: definitionRelationshipJsonSchema,
  vendors: [
    { name: 'zod 4', vendor: 'zod', schema: definitionRelationshipZod, exported: true, linearExport: true },
    {
      name: 'valibot 1 with toStandardJsonSchema',
      vendor: 'valibot',
      schema: definitionRelationshipValibotExported,
      exported: true,
      linearExport: true,
    },
    {
      name: 'valibot 1 (no JSON Schema export)',
      vendor: 'valibot',
      schema: definitionRelationshipValibot,
      exported: false,
      linearExport: true,
    },
    { name: 'arktype 2', vendor: 'arktype', schema: definitionRelationshipArktype, exported: true, linearExport: true },
  ],
};

// fixtures/schemas/ontology.schema.json: a oneOf of $ref branches on `type`, with an identifier
// pattern and the `date` and `uri` formats (ajv-formats; the vendors' own date and URL checks).
const IDENTIFIER = /^[a-z][a-z0-9_]*$/;
const ONTOLOGY_CLASSES = ['person', 'organization', 'place', 'work', 'event'] as const;

const ontologyZod = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('entity'),
    id: z.string().regex(IDENTIFIER),
    label: z.string().min(1),
    class: z.enum(ONTOLOGY_CLASSES),
    sameAs: z.url().optional(),
  }),
  z.strictObject({
    type: z.literal('relationship'),
    subject: z.string().regex(IDENTIFIER),
    predicate: z.string().min(1),
    object: z.string().regex(IDENTIFIER),
    since: z.iso.date().optional(),
  }),
  z.strictObject({
    type: z.literal('attribute'),
    entity: z.string().regex(IDENTIFIER),
    name: z.string().min(1),
    value: z.union([z.string(), z.number(), z.boolean()]),
    source: z.url().optional(),
  }),
]);

const identifier = () => v.pipe(v.string(), v.regex(IDENTIFIER));
const url = () => v.pipe(v.string(), v.url());
const isoDate = () => v.pipe(v.string(), v.isoDate());

const ontologyValibot = v.variant('type', [
  v.strictObject({
    type: v.literal('entity'),
    id: identifier(),
    label: nonEmpty(),
    class: v.picklist(ONTOLOGY_CLASSES),
    sameAs: v.optional(url()),
  }),
  v.strictObject({
    type: v.literal('relationship'),
    subject: identifier(),
    predicate: nonEmpty(),
    object: identifier(),
    since: v.optional(isoDate()),
  }),
  v.strictObject({
    type: v.literal('attribute'),
    entity: identifier(),
    name: nonEmpty(),
    value: v.union([v.string(), v.number(), v.boolean()]),
    source: v.optional(url()),
  }),
]);

const ontologyArktype = type({
  '+': 'reject',
  type: "'entity'",
  id: IDENTIFIER,
  label: 'string > 0',
  class: "'person' | 'organization' | 'place' | 'work' | 'event'",
  'sameAs?': 'string.url',
})
  .or({
    '+': 'reject',
    type: "'relationship'",
    subject: IDENTIFIER,
    predicate: 'string > 0',
    object: IDENTIFIER,
    'since?': 'string.date.iso',
  })
  .or({
    '+': 'reject',
    type: "'attribute'",
    entity: IDENTIFIER,
    name: 'string > 0',
    value: 'string | number | boolean',
    'source?': 'string.url',
  });

export const ontology: SchemaFamily = {
  json: loadJsonSchema('schemas/ontology.schema.json'),
  vendors: vendorsOf(ontologyZod, ontologyValibot, ontologyArktype, false),
};

// fixtures/schemas/calendar-action.schema.json: an `$id`, a oneOf on `action`, a `date` format
// and an `eventId` pattern.
const EVENT_ID = /^evt_[0-9a-z]+$/;

const calendarActionZod = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('create'), title: z.string().min(1), date: z.iso.date() }),
  z.strictObject({ action: z.literal('cancel'), eventId: z.string().regex(EVENT_ID), reason: z.string().optional() }),
]);

const calendarActionValibot = v.variant('action', [
  v.strictObject({ action: v.literal('create'), title: nonEmpty(), date: isoDate() }),
  v.strictObject({
    action: v.literal('cancel'),
    eventId: v.pipe(v.string(), v.regex(EVENT_ID)),
    reason: v.optional(v.string()),
  }),
]);

const calendarActionArktype = type({
  '+': 'reject',
  action: "'create'",
  title: 'string > 0',
  date: 'string.date.iso',
}).or({ '+': 'reject', action: "'cancel'", eventId: EVENT_ID, 'reason?': 'string' });

export const calendarAction: SchemaFamily = {
  json: loadJsonSchema('schemas/calendar-action.schema.json'),
  vendors: vendorsOf(calendarActionZod, calendarActionValibot, calendarActionArktype, false),
};

/** A document schema (an array) and the schema of its elements, each as a family. */
export interface ArrayFamilies {
  readonly document: SchemaFamily;
  readonly element: SchemaFamily;
}

function arrayFamilies(
  json: JsonSchema,
  zod: z.ZodType,
  valibot: v.GenericSchema,
  arktype: ReturnType<typeof type.raw>,
): ArrayFamilies {
  return {
    document: { json, vendors: vendorsOf(z.array(zod), v.array(valibot), arktype.array()) },
    element: { json: (json as { items: JsonSchema }).items, vendors: vendorsOf(zod, valibot, arktype) },
  };
}

/** fixtures/contracts/schemas/…/extract_definitions/v1.schema.json: an array of definitions. */
export const extractDefinitions: ArrayFamilies = arrayFamilies(
  loadJsonSchema('contracts/schemas/prompt-contracts/trustgraph/extract_definitions/v1.schema.json'),
  z.strictObject({ entity: z.string().min(1), definition: z.string().min(1) }),
  v.strictObject({ entity: nonEmpty(), definition: nonEmpty() }),
  type.raw({ '+': 'reject', entity: 'string > 0', definition: 'string > 0' }),
);

/** fixtures/contracts/schemas/…/extract_relationships/v1.schema.json: an array of relationships. */
export const extractRelationships: ArrayFamilies = arrayFamilies(
  loadJsonSchema('contracts/schemas/prompt-contracts/trustgraph/extract_relationships/v1.schema.json'),
  z.strictObject({
    subject: z.string().min(1),
    predicate: z.string().min(1),
    object: z.string().min(1),
    'object-entity': z.boolean(),
  }),
  v.strictObject({ subject: nonEmpty(), predicate: nonEmpty(), object: nonEmpty(), 'object-entity': v.boolean() }),
  type.raw({
    '+': 'reject',
    subject: 'string > 0',
    predicate: 'string > 0',
    object: 'string > 0',
    'object-entity': 'boolean',
  }),
);

/** fixtures/contracts/schemas/…/default_section/v1.schema.json: a title and at least one section. */
export const sections: SchemaFamily = {
  json: loadJsonSchema('contracts/schemas/prompt-contracts/tnh/sectioning/default_section/v1.schema.json'),
  vendors: vendorsOf(
    z.strictObject({
      document_title: z.string().optional(),
      sections: z
        .array(z.strictObject({ title: z.string().min(1), start_line: z.int().min(1), end_line: z.int().min(1) }))
        .min(1),
    }),
    v.strictObject({
      document_title: v.optional(v.string()),
      sections: v.pipe(
        v.array(
          v.strictObject({
            title: nonEmpty(),
            start_line: v.pipe(v.number(), v.integer(), v.minValue(1)),
            end_line: v.pipe(v.number(), v.integer(), v.minValue(1)),
          }),
        ),
        v.minLength(1),
      ),
    }),
    type({
      '+': 'reject',
      'document_title?': 'string',
      sections: type({
        '+': 'reject',
        title: 'string > 0',
        start_line: 'number.integer >= 1',
        end_line: 'number.integer >= 1',
      })
        .array()
        .atLeastLength(1),
    }),
  ),
};

/**
 * An array of `family`'s values: `items` is the family's JSON Schema (its `$defs` moved to the
 * root, where its local `$ref`s point), and each vendor's own array of its schema.
 */
export function arrayOf(family: SchemaFamily): ArrayFamilies {
  const { $schema: _schema, $id: _id, title: _title, $defs, ...items } = family.json as Record<string, unknown>;
  const json: JsonSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'array',
    items,
    ...($defs === undefined ? {} : { $defs }),
  };
  const schemaOf = (vendor: VendorSchema['vendor'], exported: boolean) =>
    family.vendors.find((entry) => entry.vendor === vendor && entry.exported === exported) as VendorSchema;
  const arktype = schemaOf('arktype', true);
  return {
    document: {
      json,
      vendors: vendorsOf(
        z.array(schemaOf('zod', true).schema as z.ZodType),
        v.array(schemaOf('valibot', false).schema as v.GenericSchema),
        (arktype.schema as ReturnType<typeof type.raw>).array(),
        arktype.linearExport,
      ),
    },
    element: family,
  };
}
