/**
 * An integer past ±2^53 loses its last digits as a JS number, where the API server's Go decoder keeps
 * any int64 exactly (and CEL reads it as that int). The exact value of each such integer literal within
 * int64 is remembered here, keyed by the container that holds it, as float-literals.ts remembers `1.0`,
 * so that CEL reads `9223372036854775807` as that int. The document itself stays plain JSON.
 *
 * A mark gives its value back only while its slot still holds the number the literal was read as: an
 * edit that puts another number there needs no unmarking.
 */
const exactKeys = new WeakMap<object, Map<string | number, bigint>>();

export function markExactInteger(container: object, key: string | number, value: bigint): void {
  let keys = exactKeys.get(container);
  if (!keys) exactKeys.set(container, (keys = new Map()));
  keys.set(key, value);
}

/** Forgets a mark: a duplicate key's later value replaces the earlier one, and with it its literal. */
export function unmarkExactInteger(container: object, key: string | number): void {
  exactKeys.get(container)?.delete(key);
}

/** True when some member of `container` is marked (one lookup that spares a walk over its members). */
export function hasExactIntegers(container: object): boolean {
  return exactKeys.has(container);
}

/** The exact value of the integer at `container[key]`, when the source wrote one past ±2^53 there. */
export function exactInteger(container: object, key: string | number): bigint | undefined {
  const value = exactKeys.get(container)?.get(key);
  return value !== undefined && (container as Record<string | number, unknown>)[key] === Number(value) ? value : undefined;
}
