/**
 * Equality of JSON values, for the `enum`, `const` and `uniqueItems` keywords of compiled
 * schemas (ajv-validator.ts puts it in place of ajv's own equality, in compiled and in
 * standalone validators, which import it from `@llmjson/core/ajv`).
 *
 * ajv's equality (fast-deep-equal) compares objects through their `constructor`, `valueOf` and
 * `toString` members, which in a model's JSON are plain data: `{"toString": 1}` against an enum
 * that holds an object made it call `1()` and throw out of `validate`, and `{"constructor": 1}`
 * equalled nothing, not even itself written twice. Here an object is its own enumerable keys and
 * their values, whatever they are named (`__proto__` included), and an array its elements.
 *
 * The recursion goes as deep as the values: a value the engines deliver is at most `maxDepth`
 * deep, and a schema's own constants are configuration.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    // NaN equals NaN, as in ajv's equality (no JSON text holds one; a schema written in code may).
    return Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key)) return false;
    if (!jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}
