/** Shared checks for partial values (packages/core/src/partial-value.ts). */
import { expect } from 'vitest';

/**
 * Asserts that `later` extends `earlier` as the partial-value invariants allow: strings only
 * grow, arrays only append, keys never disappear, numbers/booleans/null never change. With
 * `identity` (snapshots of one run), complete array elements must be the same objects; across
 * runs they must be equal.
 */
export function grows(earlier: unknown, later: unknown, earlierDone: boolean, identity = true): void {
  if (typeof earlier === 'string') {
    expect(typeof later).toBe('string');
    expect((later as string).startsWith(earlier)).toBe(true);
    return;
  }
  if (Array.isArray(earlier)) {
    expect(Array.isArray(later)).toBe(true);
    const next = later as unknown[];
    expect(next.length).toBeGreaterThanOrEqual(earlier.length);
    earlier.forEach((element, i) => {
      if (i < earlier.length - 1 || earlierDone) {
        if (identity) expect(next[i]).toBe(element);
        else expect(next[i]).toEqual(element);
      } else {
        grows(element, next[i], false, identity);
      }
    });
    return;
  }
  if (typeof earlier === 'object' && earlier !== null) {
    const next = later as Record<string, unknown>;
    for (const key of Object.keys(earlier)) {
      expect(Object.hasOwn(next, key)).toBe(true);
      grows((earlier as Record<string, unknown>)[key], next[key], earlierDone, identity);
    }
    return;
  }
  expect(later).toBe(earlier);
}
