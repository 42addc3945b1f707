/**
 * Assertions for tests. JSR (and so @std/assert) is out of reach, so these are thin wrappers
 * over node:assert with std's names, so tests read the same as any Deno project's.
 */
import nodeAssert from "node:assert/strict";

export function assert(cond: unknown, msg?: string): asserts cond {
  nodeAssert.ok(cond, msg as string);
}

export function assertEquals<T>(actual: unknown, expected: T, msg?: string): asserts actual is T {
  nodeAssert.deepStrictEqual(actual, expected, msg as string);
}

export function assertNotEquals(actual: unknown, expected: unknown, msg?: string): void {
  nodeAssert.notDeepStrictEqual(actual, expected, msg as string);
}

export function assertMatch(actual: string, re: RegExp, msg?: string): void {
  nodeAssert.match(actual, re, msg as string);
}

export function assertExists<T>(v: T, msg?: string): asserts v is NonNullable<T> {
  nodeAssert.ok(v !== null && v !== undefined, msg ?? "expected a value");
}

// deno-lint-ignore no-explicit-any
type ErrorClass<E extends Error> = new (...args: any[]) => E;

/** Awaits `fn`, asserts it rejects (with an instance of `cls` if given), returns the error. */
export async function assertRejects<E extends Error = Error>(
  fn: () => Promise<unknown>,
  cls?: ErrorClass<E>,
  includes?: string,
): Promise<E> {
  try {
    await fn();
  } catch (e) {
    return expectError(e, cls, includes);
  }
  throw new Error("Expected the promise to reject, but it resolved");
}

export function assertThrows<E extends Error = Error>(
  fn: () => unknown,
  cls?: ErrorClass<E>,
  includes?: string,
): E {
  try {
    fn();
  } catch (e) {
    return expectError(e, cls, includes);
  }
  throw new Error("Expected the function to throw");
}

function expectError<E extends Error>(e: unknown, cls?: ErrorClass<E>, includes?: string): E {
  if (cls && !(e instanceof cls)) {
    throw new Error(`Expected ${cls.name}, got ${(e as Error)?.name}: ${(e as Error)?.message}`);
  }
  if (includes && !(e as Error).message.includes(includes)) {
    throw new Error(`Expected message to include "${includes}", got "${(e as Error).message}"`);
  }
  return e as E;
}
