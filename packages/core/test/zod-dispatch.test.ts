/**
 * Dispatch on a zod 4 discriminated union goes through the union's own `~standard.validate`,
 * never zod's internals (standard-schema.ts; decision 016, addendum of 2026-11-27). Pinned
 * here: the results are exactly those of the union's own `validate` (compared with the same
 * union behind a check that accepts everything), each with the branch the JSON Schema export
 * names, a union with checks of its own still runs them, and values no branch claims are
 * reported as before.
 */
import type { CompiledSchema, ValidationResult } from '@llmjson/core';
import { compileStandardSchema } from '@llmjson/core/internal';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';

const RUNS = process.env.CI ? 200 : 500;

function union() {
  return z.discriminatedUnion('type', [
    z.object({ type: z.literal('point'), x: z.number(), y: z.number().int() }),
    z.object({ type: z.literal('label'), text: z.string().max(8), tags: z.array(z.string()).optional() }),
    z.object({ type: z.literal('group'), children: z.array(z.object({ id: z.string() })).min(1) }),
  ]);
}

/** What a consumer sees of a result: everything but object identity. */
function seen(result: ValidationResult): unknown {
  return JSON.parse(JSON.stringify(result));
}

const tags = fc.constantFrom('point', 'label', 'group', 'other', 'POINT');
const field = fc.oneof(fc.integer(), fc.double({ noNaN: true }), fc.string({ maxLength: 12 }), fc.constant(null));
const candidate = fc.oneof(
  fc.record(
    {
      type: tags,
      x: field,
      y: field,
      text: field,
      tags: fc.oneof(fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }), field),
      children: fc.oneof(fc.array(fc.record({ id: field }), { maxLength: 2 }), field),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ x: field }),
  field,
  fc.array(field, { maxLength: 2 }),
);

describe('zod discriminated union: through the union’s own validate', () => {
  test('results equal the union’s own validate, for any value', () => {
    const direct: CompiledSchema = compileStandardSchema(union());
    // A check that accepts everything keeps the union's own path (a union with checks is never bypassed).
    const throughUnion: CompiledSchema = compileStandardSchema(union().check(() => undefined));
    expect(direct.branches).toEqual(['point', 'label', 'group']);
    expect(throughUnion.branches).toEqual(direct.branches);
    fc.assert(
      fc.property(candidate, (value) => {
        expect(seen(direct.validate(value))).toEqual(seen(throughUnion.validate(value)));
      }),
      { numRuns: RUNS },
    );
  });

  test('valid values of every branch name their branch; invalid ones carry the branch’s issues', () => {
    const compiled = compileStandardSchema(union());
    expect(compiled.validate({ type: 'point', x: 1.5, y: 2 })).toEqual({ valid: true, branch: 'point' });
    expect(compiled.validate({ type: 'group', children: [{ id: 'a' }] })).toEqual({ valid: true, branch: 'group' });
    const result = compiled.validate({ type: 'point', x: 1, y: 2.5 });
    expect(result.valid).toBe(false);
    if (result.valid) return;
    expect(result.branch).toBe('point');
    expect(result.errors?.map((e) => e.path)).toEqual(['/y']);
    expect(result.message).toMatch(/^branch "point": at \/y: /);
  });

  test('the union’s own ~standard.validate runs, once per value a branch claims, plain or refined', () => {
    const counted = (schema: ReturnType<typeof union> | z.ZodType) => {
      // zod's `~standard` is a plain writable object; its type says read-only.
      const standard = schema['~standard'] as { validate: (value: unknown) => unknown };
      const original = standard.validate;
      const count = { calls: 0 };
      standard.validate = (value: unknown) => {
        count.calls++;
        return original(value);
      };
      return count;
    };
    for (const schema of [union(), union().check(() => undefined)]) {
      const calls = counted(schema);
      const compiled = compileStandardSchema(schema);
      expect(compiled.validate({ type: 'label', text: 'hi' })).toEqual({ valid: true, branch: 'label' });
      expect(calls.calls).toBe(1);
      // A value no branch claims is refused by the seam, without calling the vendor.
      expect(compiled.validate({ type: 'other' }).valid).toBe(false);
      expect(calls.calls).toBe(1);
    }
  });

  test('a union with a refinement of its own still runs it', () => {
    const refined = union().refine((value) => !(value.type === 'point' && value.x === 13), 'x must not be 13');
    const compiled = compileStandardSchema(refined);
    expect(compiled.validate({ type: 'point', x: 12, y: 0 })).toEqual({ valid: true, branch: 'point' });
    const result = compiled.validate({ type: 'point', x: 13, y: 0 });
    expect(result.valid).toBe(false);
    if (!result.valid) expect(result.message).toContain('x must not be 13');
  });

  test('a tag no branch has is reported without calling zod, as before', () => {
    const compiled = compileStandardSchema(union());
    const result = compiled.validate({ type: 'circle' });
    expect(result.valid).toBe(false);
    if (!result.valid) expect(result.message).toMatch(/unknown discriminator/);
  });
});
