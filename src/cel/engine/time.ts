/**
 * Timestamps and durations with nanosecond precision: RFC 3339 parsing and Go duration strings (both Go's
 * own, from src/go), RFC 3339 and protobuf duration formatting, calendar fields in UTC, fixed offsets
 * (`+05:30`) or IANA zones (via Intl).
 */
import { formatRFC3339, parseInt64, strconvQuote, timeFields, tryParseDuration, tryParseRFC3339, unixNanos } from '../../go/index.js';
import { CelEvalError } from './errors.js';
import { Duration, INT64_MAX, INT64_MIN, NANOS_PER_SECOND, TS_MAX_SECONDS, TS_MIN_SECONDS, Timestamp, floorDiv } from './values.js';

/**
 * A timestamp within CEL's range (years 1 to 9999), or cel-go's error (errTimestampOverflow); `offset`
 * is the zone of the time it was computed from (Go's Time.Add keeps the location).
 */
export function checkTimestamp(ns: bigint, offset = 0): Timestamp {
  const s = floorDiv(ns, NANOS_PER_SECOND);
  if (s < TS_MIN_SECONDS || s > TS_MAX_SECONDS) throw new CelEvalError('timestamp overflow');
  return new Timestamp(ns, offset);
}

/** A duration of int64 nanoseconds; cel-go's arithmetic on them overflows as int64 does ('integer overflow'). */
export function checkDuration(ns: bigint): Duration {
  if (ns < INT64_MIN || ns > INT64_MAX) throw new CelEvalError('integer overflow');
  return new Duration(ns);
}

/** Parses an RFC 3339 timestamp as cel-go does (Go's time.Parse(time.RFC3339)); undefined when it is not one. */
export function parseTimestamp(text: string): Timestamp | undefined {
  const t = tryParseRFC3339(text);
  // A zero offset is UTC ('Z'), as Go gives the local zone (UTC) for it.
  return t && new Timestamp(unixNanos(t), t.offset || 0);
}

/**
 * RFC 3339 with the shortest exact fraction (Go's time.RFC3339Nano), in the timestamp's own zone, as
 * Go's Time.Format prints it: `Z` for UTC, `+01:00` for a time parsed with that offset.
 */
export function formatTimestamp(t: Timestamp): string {
  return formatRFC3339({ sec: Number(t.seconds), nsec: t.nanos, offset: t.offset }, true);
}

/** Go's time.ParseDuration: "1h30m", "-1.5s", "300ms"; undefined when invalid or out of range. */
export function parseDuration(text: string): Duration | undefined {
  const ns = tryParseDuration(text);
  return ns === undefined ? undefined : new Duration(ns);
}

/** Protobuf JSON duration text ("1.5s"), as cel-go prints `string(duration)`. */
export function formatDuration(d: Duration): string {
  const neg = d.ns < 0n;
  const abs = neg ? -d.ns : d.ns;
  const secs = abs / NANOS_PER_SECOND;
  const nanos = abs % NANOS_PER_SECOND;
  let out = `${neg ? '-' : ''}${secs}`;
  if (nanos) out += `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`;
  return `${out}s`;
}

/**
 * `string(duration)` as cel-go converts it (Duration.ConvertToType): Go's d.Seconds() — a float64, so
 * past about 10^7 seconds the nanoseconds round — in the shortest fixed form, then 's'.
 */
export function durationToString(d: Duration): string {
  const seconds = Number(d.ns / NANOS_PER_SECOND) + Number(d.ns % NANOS_PER_SECOND) / 1e9;
  return `${shortestFixed(seconds)}s`;
}

/** strconv.FormatFloat(x, 'f', -1, 64): the shortest round-trip digits, never in exponent form. */
function shortestFixed(x: number): string {
  const text = String(x);
  const e = text.indexOf('e');
  if (e < 0) return text;
  const neg = text[0] === '-';
  const mantissa = text.slice(neg ? 1 : 0, e);
  const dot = mantissa.indexOf('.');
  const digits = mantissa.replace('.', '');
  // The decimal point sits `point` digits into `digits`.
  const point = (dot < 0 ? mantissa.length : dot) + Number(text.slice(e + 1));
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return neg ? `-${out}` : out;
}

export interface Civil {
  year: number;
  month: number; // 1-12
  day: number; // 1-31
  hour: number;
  minute: number;
  second: number;
  millis: number;
  dayOfWeek: number; // 0 = Sunday
  dayOfYear: number; // 0-based
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * Go's strconv.Atoi: an optional sign, then decimal digits, within int64; its error text otherwise
 * ('strconv.Atoi: parsing "x": invalid syntax', '... value out of range').
 */
function goAtoi(text: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(text)) throw new CelEvalError(`strconv.Atoi: parsing ${strconvQuote(text)}: invalid syntax`);
  const n = parseInt64(text);
  if (n === undefined) throw new CelEvalError(`strconv.Atoi: parsing ${strconvQuote(text)}: value out of range`);
  return n;
}

/**
 * A numeric offset `[+-]H:M` in minutes, as cel-go's timeZone (common/types/timestamp.go) reads any zone
 * argument with a ':': strconv.Atoi of each side (its errors are the call's), minutes within [0, 59]
 * (cel-go#1336), the sign of the whole offset from the text's first character. Go's int64 arithmetic wraps.
 */
function fixedOffsetMinutes(zone: string, colon: number): number {
  const hr = goAtoi(zone.slice(0, colon));
  const min = goAtoi(zone.slice(colon + 1));
  if (min < 0n || min > 59n) throw new CelEvalError(`timezone offset minutes out of range [0, 59]: ${zone}`);
  const offset = BigInt.asIntN(64, zone[0] === '-' ? hr * 60n - min : hr * 60n + min);
  // (time.Duration(offset) * time.Minute).Seconds(), truncated to int: whole seconds, so whole minutes.
  const ns = BigInt.asIntN(64, offset * 60_000_000_000n);
  return Number(ns / NANOS_PER_SECOND) / 60;
}

/** Offset of `zone` in minutes at the given UTC instant; throws Go's time.LoadLocation errors for unknown zones. */
function zoneOffsetMinutes(zone: string, epochMs: number): number {
  const colon = zone.indexOf(':');
  if (colon !== -1) return fixedOffsetMinutes(zone, colon);
  // LoadLocation: "" and "UTC" are UTC; "Local" is the server's zone (kube-apiserver's image has none: UTC).
  if (zone === '' || zone === 'UTC' || zone === 'Local') return 0;
  if (zone.includes('..') || zone[0] === '/' || zone[0] === '\\') throw new CelEvalError('time: invalid location name');
  let f = formatters.get(zone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new CelEvalError(`unknown time zone ${zone}`);
    }
    // Go reads the zoneinfo files by name, case-sensitively; Intl matches any case. An alias Intl resolves
    // to another canonical name (US/Central) cannot be checked this way and is accepted.
    const resolved = f.resolvedOptions().timeZone;
    if (resolved !== zone && resolved.toLowerCase() === zone.toLowerCase()) throw new CelEvalError(`unknown time zone ${zone}`);
    formatters.set(zone, f);
  }
  // Intl only handles the JS Date range; clamp to a year it supports for the offset lookup.
  const parts = f.formatToParts(new Date(Math.max(Math.min(epochMs, 8.64e15), -8.64e15)));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const base = Math.floor(epochMs / 1000) * 1000;
  return Math.round((asUtc - base) / 60000);
}

/** Calendar fields of a timestamp in UTC or in `zone`. */
export function civil(t: Timestamp, zone?: string): Civil {
  // Timestamps span years 1 to 9999: their seconds are exact as a double.
  const sec = Number(t.seconds);
  const offset = zone === undefined ? 0 : zoneOffsetMinutes(zone, sec * 1000) * 60;
  const f = timeFields({ sec, nsec: t.nanos, offset });
  return {
    year: f.year,
    month: f.month,
    day: f.day,
    hour: f.hour,
    minute: f.minute,
    second: f.second,
    millis: Math.floor(t.nanos / 1e6),
    dayOfWeek: f.weekday,
    dayOfYear: f.yearDay - 1,
  };
}
