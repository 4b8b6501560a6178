/**
 * A CEL value as cel-go's error texts print it: Go's `%v` of the ref.Val (`no such key: %v`,
 * `cannot initialize optional list element from non-optional value %v`). A list or map prints through
 * its String method (`[1, a]`, `{k: v}`), an optional as `optional(v)`, a timestamp as time.Time.String,
 * a duration as time.Duration.String, bytes as a Go byte slice (`[97 98]`), null as its int32 (`0`).
 * Kubernetes' own object values have no String method (Go prints their struct); they print here as
 * CEL lists and maps do. goTypeText is the `%T` of the same values.
 */
import { formatDuration, formatFloatG, timeFields } from '../../go/index.js';
import { mapGet, mapKeys, typeNameOf } from './runtime.js';
import { CelOptional, CelUint, Duration, LazyObject, StructValue, Timestamp, TypeValue, isMapValue, type CelValue } from './values.js';

export function goValueText(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return v;
    case 'bigint':
      return v.toString();
    case 'number':
      return formatFloatG(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v === null) return '0';
  if (v instanceof CelUint) return v.valueOf().toString();
  if (Array.isArray(v)) return `[${v.map(goValueText).join(', ')}]`;
  if (v instanceof Uint8Array) return `[${v.join(' ')}]`;
  if (v instanceof Timestamp) return timeString(v);
  if (v instanceof Duration) return formatDuration(v.ns);
  if (v instanceof CelOptional) return v.hasValue() ? `optional(${goValueText(v.value())})` : 'optional.none()';
  if (v instanceof TypeValue) return RUNTIME_TYPE_TEXT[v.name] ?? v.name;
  if (isMapValue(v)) return `{${mapKeys(v).map((k) => `${goValueText(k)}: ${goValueText(mapGet(v, k))}`).join(', ')}}`;
  if (v instanceof StructValue) return `{${[...v.fields].map(([k, f]) => `${k}: ${goValueText(f)}`).join(', ')}}`;
  if (v instanceof LazyObject) return v.typeName;
  const own = (v as { toString?: () => string }).toString;
  return typeof own === 'function' && own !== Object.prototype.toString ? String(v) : typeNameOf(v as CelValue);
}

/** The runtime types of aggregates are parameterized with dyn (common/types/types.go ListType, MapType). */
const RUNTIME_TYPE_TEXT: Record<string, string> = { list: 'list(dyn)', map: 'map(dyn, dyn)' };

/**
 * time.Time.String: `2006-01-02 15:04:05.999999999 -0700 MST`. The zone name is UTC for a zero offset
 * (the local zone, UTC, for a parsed +00:00 too) and, for another parsed offset, a fixed zone without a
 * name, which Go prints as the offset again.
 */
function timeString(t: Timestamp): string {
  const f = timeFields({ sec: Number(t.seconds), nsec: t.nanos, offset: t.offset });
  const fraction = t.nanos === 0 ? '' : `.${String(t.nanos).padStart(9, '0').replace(/0+$/, '')}`;
  const abs = Math.abs(t.offset) / 60;
  const zone = `${t.offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 60), 2)}${pad(abs % 60, 2)}`;
  const date = `${pad(f.year, 4)}-${pad(f.month, 2)}-${pad(f.day, 2)}`;
  const time = `${pad(f.hour, 2)}:${pad(f.minute, 2)}:${pad(f.second, 2)}${fraction}`;
  return `${date} ${time} ${zone} ${t.offset === 0 ? 'UTC' : zone}`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/**
 * Go's `%T` of the cel-go value a CEL value is (`invalid qualifier type: %T`). A list or map is cel-go's
 * usual implementation of it (a literal, a document's list or map, a comprehension's result).
 */
export function goTypeText(v: unknown): string {
  if (v === null) return 'types.Null';
  if (Array.isArray(v)) return '*types.baseList';
  if (isMapValue(v)) return '*types.baseMap';
  if (v instanceof Uint8Array) return 'types.Bytes';
  if (v instanceof Timestamp) return 'types.Timestamp';
  if (v instanceof Duration) return 'types.Duration';
  if (v instanceof CelOptional) return '*types.Optional';
  if (v instanceof TypeValue) return '*types.Type';
  return typeNameOf(v as CelValue);
}
