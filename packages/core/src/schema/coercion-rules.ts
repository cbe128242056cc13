/**
 * The coercions by name, and what one repair reports. It imports nothing: the validator seam
 * (a result's `fixes`) and the `coerce` option (coercion-options.ts) both use it.
 */

/** The coercions, by name: the `coerce` option lists these, and each fix's `rule` is one. */
export const CoercionRule = {
  stringToNumber: 'string-to-number',
  stringToBoolean: 'string-to-boolean',
  singleToArray: 'single-to-array',
  enumCase: 'enum-case',
  floatToInteger: 'float-to-integer',
  default: 'default',
  nullToAbsent: 'null-to-absent',
} as const;

export type CoercionRule = (typeof CoercionRule)[keyof typeof CoercionRule];

/** Every coercion, in the order they are documented. */
export const COERCION_RULES: readonly CoercionRule[] = Object.freeze(Object.values(CoercionRule));

/** One repair: the coercion applied, where (JSON Pointer in the value), and a sentence. */
export interface CoercionFix {
  readonly rule: CoercionRule;
  readonly path: string;
  readonly message: string;
}
