/** fmt.Sprint (`%v`) of a value decoded from JSON: numbers are float64, map keys print sorted. */
import type { JsonValue } from '../json/index.js';
import { formatFloatG } from './float.js';
import { compareStrings } from './string-order.js';

/**
 * `other` may print values that are not JSON (JMESPath's expression references) wherever they sit;
 * `formatNumber` prints a number (default: a float64's `%v`; a caller holding int64s passes its own).
 */
export function goSprint(
  value: JsonValue,
  other?: (value: object) => string | undefined,
  formatNumber: (n: number) => string = formatFloatG,
): string {
  if (value === null) return '<nil>';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return formatNumber(value);
    case 'boolean':
      return value ? 'true' : 'false';
  }
  const printed = other?.(value);
  if (printed !== undefined) return printed;
  if (Array.isArray(value)) return `[${value.map((item) => goSprint(item, other, formatNumber)).join(' ')}]`;
  const keys = Object.keys(value).sort(compareStrings);
  return `map[${keys.map((k) => `${k}:${goSprint(value[k], other, formatNumber)}`).join(' ')}]`;
}
