/**
 * fmt's `%s` and `%T` of a value encoding/json decoded into `any`, as Kyverno's context loaders print
 * values in their errors (pkg/engine/context/loaders). `%s`: strings print as they are,
 * lists `[a b]`, maps `map[k:v]` with sorted keys; a number or boolean is a bad verb for `%s`
 * (`%!s(float64=1)`, `%!s(bool=true)`), and null is `%!s(<nil>)` alone but `<nil>` inside a list or map.
 */
import type { JsonValue } from '../../json/index.js';
import { compareStrings, formatFloatG } from '../../go/index.js';

export function goSprintS(value: JsonValue, nested = false): string {
  if (value === null) return nested ? '<nil>' : '%!s(<nil>)';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return `%!s(float64=${formatFloatG(value)})`;
    case 'boolean':
      return `%!s(bool=${value})`;
  }
  if (Array.isArray(value)) return `[${value.map((item) => goSprintS(item, true)).join(' ')}]`;
  const keys = Object.keys(value).sort(compareStrings);
  return `map[${keys.map((k) => `${k}:${goSprintS(value[k], true)}`).join(' ')}]`;
}

/** `%T`: the Go type encoding/json decodes a JSON value into. */
export function goTypeName(value: JsonValue): string {
  if (value === null) return '<nil>';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
  }
  return Array.isArray(value) ? '[]interface {}' : 'map[string]interface {}';
}
