/**
 * CEL (and Kubernetes' unstructured decoding) tell `1` (int) from `1.0` (double), but `JSON.parse`
 * gives both as the JS number 1. Numbers that the source text wrote as floating-point literals with an
 * integral value are remembered here, keyed by the container that holds them, so that the CEL layer
 * can type them as double. Nothing else needs to care: the document itself stays plain JSON.
 */
const floatKeys = new WeakMap<object, Set<string | number>>();

export function markFloatLiteral(container: object, key: string | number): void {
  let keys = floatKeys.get(container);
  if (!keys) floatKeys.set(container, (keys = new Set()));
  keys.add(key);
}

/**
 * Forgets a mark: a duplicate key's later value replaces the earlier one (last wins, as in Go's decoder
 * and JSON.parse), and with it the earlier value's literal form.
 */
export function unmarkFloatLiteral(container: object, key: string | number): void {
  floatKeys.get(container)?.delete(key);
}

/** True when some member of `container` is marked (one lookup that spares a walk over its members). */
export function hasFloatLiterals(container: object): boolean {
  return floatKeys.has(container);
}

/** True when `container[key]` is an integral number that the source wrote as a float (`1.0`, `1e3`). */
export function isFloatLiteral(container: object, key: string | number): boolean {
  return floatKeys.get(container)?.has(key) ?? false;
}
