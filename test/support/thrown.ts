/** The error of class `type` that `run` throws; the test fails when it throws nothing or something else. */
import { expect } from 'vitest';

export function thrownBy<E>(type: abstract new (...args: any[]) => E, run: () => unknown): E {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(type);
    return error as E;
  }
  throw new Error(`expected a thrown ${type.name}`);
}
