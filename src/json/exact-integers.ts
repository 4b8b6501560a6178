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

/**
 * Whether this process has marked any integer yet: until then (the usual case, no review held an int64
 * past ±2^53) the writers and comparisons that honour marks skip looking for them.
 */
let anyMarked = false;

export function exactIntegersMarked(): boolean {
  return anyMarked;
}

export function markExactInteger(container: object, key: string | number, value: bigint): void {
  anyMarked = true;
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

/**
 * Whether the numbers at `a[aKey]` and `b[bKey]` (equal as JS numbers) are the same number: not when one of
 * them stands for an exact integer the other is not.
 */
export function sameExactInteger(a: object, aKey: string | number, b: object, bKey: string | number): boolean {
  return !anyMarked || exactInteger(a, aKey) === exactInteger(b, bKey);
}

/**
 * `JSON.stringify(value)`, to the character, except that an integer marked exact is written with all its
 * digits (the API server's int64), the marks being those of `value`'s containers; `holder[key]` is where
 * `value` itself sits, for a number at the top. Whole subtrees without marks go to JSON.stringify.
 */
export function jsonTextExact(value: unknown, holder?: object, key?: string | number): string {
  if (typeof value === 'number') {
    const exact = anyMarked && holder !== undefined && key !== undefined ? exactInteger(holder, key) : undefined;
    return exact !== undefined ? exact.toString() : JSON.stringify(value);
  }
  if (!anyMarked || typeof value !== 'object' || value === null || !holdsExactIntegers(value)) return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      // JSON.stringify writes null for what JSON has no form of in a list.
      const text = item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : jsonTextExact(item, value, i);
      out += (i === 0 ? '' : ',') + text;
    }
    return out + ']';
  }
  let out = '{';
  let first = true;
  for (const k of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[k];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    out += (first ? '' : ',') + JSON.stringify(k) + ':' + jsonTextExact(member, value, k);
    first = false;
  }
  return out + '}';
}

/** Whether some container in `value` (itself included) holds a marked integer. */
function holdsExactIntegers(value: object): boolean {
  if (exactKeys.has(value)) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (typeof item === 'object' && item !== null && holdsExactIntegers(item)) return true;
    return false;
  }
  for (const k in value) {
    const member = (value as Record<string, unknown>)[k];
    if (typeof member === 'object' && member !== null && holdsExactIntegers(member)) return true;
  }
  return false;
}
