/**
 * Timestamps and durations with nanosecond precision: RFC 3339 parsing/formatting, Go-style duration
 * strings, calendar fields in UTC, fixed offsets (`+05:30`) or IANA zones (via Intl).
 */
import { civilFromDays, daysFromCivil, daysInMonth } from '../../k8s/index.js';
import { CelEvalError } from './errors.js';
import { Duration, INT64_MAX, INT64_MIN, NANOS_PER_SECOND, TS_MAX_SECONDS, TS_MIN_SECONDS, Timestamp, floorDiv } from './values.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export function checkTimestamp(ns: bigint): Timestamp {
  const s = floorDiv(ns, NANOS_PER_SECOND);
  if (s < TS_MIN_SECONDS || s > TS_MAX_SECONDS) throw new CelEvalError('timestamp out of range');
  return new Timestamp(ns);
}

export function checkDuration(ns: bigint): Duration {
  if (ns < INT64_MIN || ns > INT64_MAX) throw new CelEvalError('duration out of range');
  return new Duration(ns);
}

/** Parses an RFC 3339 timestamp; undefined when the text is not one. */
export function parseTimestamp(text: string): Timestamp | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return undefined;
  let offsetMin = 0;
  if (!m[8]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const secs = BigInt(daysFromCivil(y, mo, d)) * 86400n + BigInt(h * 3600 + mi * 60 + s - offsetMin * 60);
  const frac = m[7] ? BigInt(m[7].padEnd(9, '0')) : 0n;
  return new Timestamp(secs * NANOS_PER_SECOND + frac);
}

/** RFC 3339 with the shortest exact fraction, in UTC (Go's time.RFC3339Nano). */
export function formatTimestamp(t: Timestamp): string {
  const secs = t.seconds;
  const nanos = t.nanos;
  const days = Number(floorDiv(secs, 86400n));
  const sod = Number(secs - BigInt(days) * 86400n);
  const { year, month, day } = civilFromDays(days);
  const p2 = (n: number) => String(n).padStart(2, '0');
  let out = `${String(year).padStart(4, '0')}-${p2(month)}-${p2(day)}T${p2(Math.floor(sod / 3600))}:${p2(Math.floor((sod % 3600) / 60))}:${p2(sod % 60)}`;
  if (nanos) out += `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`;
  return `${out}Z`;
}

const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n,
  'μs': 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Go's time.ParseDuration: "1h30m", "-1.5s", "300ms"; undefined when invalid or out of range. */
export function parseDuration(text: string): Duration | undefined {
  let s = text;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return new Duration(0n);
  if (s === '') return undefined;
  let total = 0n;
  const re = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (s.length) {
    const m = re.exec(s);
    if (!m || (m[1] === '' && (m[2] === undefined || m[2] === ''))) return undefined;
    const unit = UNIT_NS[m[3]];
    let v = BigInt(m[1] || '0') * unit;
    if (m[2]) v += (BigInt(m[2]) * unit) / 10n ** BigInt(m[2].length);
    total += v;
    if (total > INT64_MAX + 1n) return undefined;
    s = s.slice(m[0].length);
  }
  if (neg) total = -total;
  if (total < INT64_MIN || total > INT64_MAX) return undefined;
  return new Duration(total);
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

/** Offset of `zone` in minutes at the given UTC instant; throws for unknown zones. */
function zoneOffsetMinutes(zone: string, epochMs: number): number {
  const fixed = /^([+-])?(\d{2}):(\d{2})$/.exec(zone);
  if (fixed) {
    const mins = Number(fixed[2]) * 60 + Number(fixed[3]);
    return fixed[1] === '-' ? -mins : mins;
  }
  if (zone === 'UTC' || zone === 'Z') return 0;
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
      throw new CelEvalError(`unknown time zone ${JSON.stringify(zone)}`);
    }
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
  let secs = t.seconds;
  if (zone !== undefined) {
    const offset = zoneOffsetMinutes(zone, Number(secs) * 1000);
    secs += BigInt(offset * 60);
  }
  const days = Number(floorDiv(secs, 86400n));
  const sod = Number(secs - BigInt(days) * 86400n);
  const { year, month, day } = civilFromDays(days);
  return {
    year,
    month,
    day,
    hour: Math.floor(sod / 3600),
    minute: Math.floor((sod % 3600) / 60),
    second: sod % 60,
    millis: Math.floor(t.nanos / 1e6),
    dayOfWeek: (((days + 4) % 7) + 7) % 7,
    dayOfYear: days - daysFromCivil(year, 1, 1),
  };
}
