/**
 * Go's `time` package: time.Parse with reference-time layouts ("2006-01-02T15:04:05Z07:00") and Go's
 * error messages, Format(RFC3339), Add, Sub, Truncate, Before/After and calendar fields. Kyverno's time
 * functions use all of it; CEL's timestamp() and metav1.Time's strict decoding use time.Parse(RFC3339).
 * Instants carry nanoseconds and the parsed UTC offset. The local zone is UTC (as in Kyverno's pods).
 */

import { civilFromDays, daysFromCivil, daysInMonth, isLeapYear } from './calendar.js';
import { timeQuote } from './quote.js';

export const RFC3339 = '2006-01-02T15:04:05Z07:00';

export interface GoTime {
  /** Seconds since the Unix epoch (UTC). */
  sec: number;
  /** 0 … 999 999 999 */
  nsec: number;
  /** Seconds east of UTC of the time's location. */
  offset: number;
}

export class TimeParseError extends Error {}

// ---- calendar ------------------------------------------------------------------------------------

const DAYS_BEFORE = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];

export interface TimeFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number; // 0 = Sunday
  yearDay: number; // 1 = January 1st (Go's YearDay)
}

export function timeFields(t: GoTime): TimeFields {
  const local = t.sec + t.offset;
  const days = Math.floor(local / 86400);
  const rem = local - days * 86400;
  const { year, month, day } = civilFromDays(days);
  return {
    year,
    month,
    day,
    hour: Math.floor(rem / 3600),
    minute: Math.floor((rem % 3600) / 60),
    second: rem % 60,
    weekday: (((days + 4) % 7) + 7) % 7,
    yearDay: days - daysFromCivil(year, 1, 1) + 1,
  };
}

// ---- formatting -----------------------------------------------------------------------------------

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/** t.Format(time.RFC3339), or with `nano` time.RFC3339Nano (the shortest exact fraction). */
export function formatRFC3339(t: GoTime, nano = false): string {
  const f = timeFields(t);
  const fraction = nano && t.nsec !== 0 ? `.${pad(t.nsec, 9).replace(/0+$/, '')}` : '';
  const year = f.year < 0 ? `-${pad(-f.year, 4)}` : pad(f.year, 4);
  let zone = 'Z';
  if (t.offset !== 0) {
    const abs = Math.abs(t.offset);
    zone = `${t.offset < 0 ? '-' : '+'}${pad(Math.floor(abs / 3600), 2)}:${pad(Math.floor((abs % 3600) / 60), 2)}`;
  }
  return `${year}-${pad(f.month, 2)}-${pad(f.day, 2)}T${pad(f.hour, 2)}:${pad(f.minute, 2)}:${pad(f.second, 2)}${fraction}${zone}`;
}

// ---- arithmetic -----------------------------------------------------------------------------------

const NS = 1_000_000_000n;
const MAX_DURATION = (1n << 63n) - 1n;
const MIN_DURATION = -(1n << 63n);
const UNIX_TO_ABSOLUTE = 62135596800n; // seconds from 0001-01-01 to 1970-01-01

/** Nanoseconds since the Unix epoch. */
export function unixNanos(t: GoTime): bigint {
  return BigInt(t.sec) * NS + BigInt(t.nsec);
}

function fromTotalNs(total: bigint, offset: number): GoTime {
  let sec = total / NS;
  let nsec = total % NS;
  if (nsec < 0n) {
    nsec += NS;
    sec -= 1n;
  }
  return { sec: Number(sec), nsec: Number(nsec), offset };
}

export function addDuration(t: GoTime, d: bigint): GoTime {
  return fromTotalNs(unixNanos(t) + d, t.offset);
}

/** t.Sub(u), saturating at the Duration range as Go does. */
export function subTimes(t: GoTime, u: GoTime): bigint {
  const d = unixNanos(t) - unixNanos(u);
  if (d > MAX_DURATION) return MAX_DURATION;
  if (d < MIN_DURATION) return MIN_DURATION;
  return d;
}

export function compareTimes(a: GoTime, b: GoTime): number {
  const d = unixNanos(a) - unixNanos(b);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** t.Truncate(d): rounds down to a multiple of d since the zero time (0001-01-01 UTC). */
export function truncateTime(t: GoTime, d: bigint): GoTime {
  if (d <= 0n) return t;
  const abs = (BigInt(t.sec) + UNIX_TO_ABSOLUTE) * NS + BigInt(t.nsec);
  const r = ((abs % d) + d) % d;
  return addDuration(t, -r);
}

export function fromUnixMillis(ms: number): GoTime {
  const sec = Math.floor(ms / 1000);
  return { sec, nsec: Math.round((ms - sec * 1000) * 1e6), offset: 0 };
}

// ---- parsing --------------------------------------------------------------------------------------

type Std =
  | { kind: 'none' }
  | { kind: 'longMonth' | 'month' | 'numMonth' | 'zeroMonth' | 'longWeekDay' | 'weekDay' | 'day' | 'underDay' | 'zeroDay' }
  | { kind: 'underYearDay' | 'zeroYearDay' | 'hour' | 'hour12' | 'zeroHour12' | 'minute' | 'zeroMinute' | 'second' | 'zeroSecond' }
  | { kind: 'longYear' | 'year' | 'PM' | 'pm' | 'TZ' }
  | { kind: 'iso8601TZ' | 'iso8601SecondsTZ' | 'iso8601ShortTZ' | 'iso8601ColonTZ' | 'iso8601ColonSecondsTZ' }
  | { kind: 'numTZ' | 'numSecondsTz' | 'numShortTZ' | 'numColonTZ' | 'numColonSecondsTZ' }
  | { kind: 'fracSecond0' | 'fracSecond9'; digits: number };

interface Chunk {
  prefix: string;
  std: Std;
  suffix: string;
}

const startsWithLower = (s: string) => s.length > 0 && s[0] >= 'a' && s[0] <= 'z';
const isDigitAt = (s: string, i: number) => i < s.length && s[i] >= '0' && s[i] <= '9';

function nextStdChunk(layout: string): Chunk {
  const at = (i: number, lit: string) => layout.startsWith(lit, i);
  const chunk = (i: number, kind: string, len: number, extra: Partial<{ digits: number }> = {}): Chunk => ({
    prefix: layout.slice(0, i),
    std: { kind, ...extra } as Std,
    suffix: layout.slice(i + len),
  });
  for (let i = 0; i < layout.length; i++) {
    const c = layout[i];
    switch (c) {
      case 'J':
        if (at(i, 'Jan')) {
          if (at(i, 'January')) return chunk(i, 'longMonth', 7);
          if (!startsWithLower(layout.slice(i + 3))) return chunk(i, 'month', 3);
        }
        break;
      case 'M':
        if (at(i, 'Mon')) {
          if (at(i, 'Monday')) return chunk(i, 'longWeekDay', 6);
          if (!startsWithLower(layout.slice(i + 3))) return chunk(i, 'weekDay', 3);
        }
        if (at(i, 'MST')) return chunk(i, 'TZ', 3);
        break;
      case '0': {
        const n = layout[i + 1];
        if (n !== undefined && n >= '1' && n <= '6') {
          const kinds = ['zeroMonth', 'zeroDay', 'zeroHour12', 'zeroMinute', 'zeroSecond', 'year'];
          return chunk(i, kinds[n.charCodeAt(0) - 49], 2);
        }
        if (at(i, '002')) return chunk(i, 'zeroYearDay', 3);
        break;
      }
      case '1':
        if (layout[i + 1] === '5') return chunk(i, 'hour', 2);
        return chunk(i, 'numMonth', 1);
      case '2':
        if (at(i, '2006')) return chunk(i, 'longYear', 4);
        return chunk(i, 'day', 1);
      case '_':
        if (layout[i + 1] === '2') {
          if (at(i + 1, '2006')) return { prefix: layout.slice(0, i + 1), std: { kind: 'longYear' }, suffix: layout.slice(i + 5) };
          return chunk(i, 'underDay', 2);
        }
        if (at(i, '__2')) return chunk(i, 'underYearDay', 3);
        break;
      case '3':
        return chunk(i, 'hour12', 1);
      case '4':
        return chunk(i, 'minute', 1);
      case '5':
        return chunk(i, 'second', 1);
      case 'P':
        if (layout[i + 1] === 'M') return chunk(i, 'PM', 2);
        break;
      case 'p':
        if (layout[i + 1] === 'm') return chunk(i, 'pm', 2);
        break;
      case '-':
        if (at(i, '-070000')) return chunk(i, 'numSecondsTz', 7);
        if (at(i, '-07:00:00')) return chunk(i, 'numColonSecondsTZ', 9);
        if (at(i, '-0700')) return chunk(i, 'numTZ', 5);
        if (at(i, '-07:00')) return chunk(i, 'numColonTZ', 6);
        if (at(i, '-07')) return chunk(i, 'numShortTZ', 3);
        break;
      case 'Z':
        if (at(i, 'Z070000')) return chunk(i, 'iso8601SecondsTZ', 7);
        if (at(i, 'Z07:00:00')) return chunk(i, 'iso8601ColonSecondsTZ', 9);
        if (at(i, 'Z0700')) return chunk(i, 'iso8601TZ', 5);
        if (at(i, 'Z07:00')) return chunk(i, 'iso8601ColonTZ', 6);
        if (at(i, 'Z07')) return chunk(i, 'iso8601ShortTZ', 3);
        break;
      case '.':
      case ',': {
        const ch = layout[i + 1];
        if (ch === '0' || ch === '9') {
          let j = i + 1;
          while (j < layout.length && layout[j] === ch) j++;
          if (!isDigitAt(layout, j)) {
            return { prefix: layout.slice(0, i), std: { kind: ch === '0' ? 'fracSecond0' : 'fracSecond9', digits: j - (i + 1) }, suffix: layout.slice(j) };
          }
        }
        break;
      }
    }
  }
  return { prefix: layout, std: { kind: 'none' }, suffix: '' };
}

const SHORT_DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const SHORT_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const LONG_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

class Bad extends Error {}
const BAD = new Bad('bad');

function lookup(tab: string[], val: string): [number, string] {
  for (let i = 0; i < tab.length; i++) {
    const name = tab[i];
    if (val.length >= name.length && val.slice(0, name.length).toLowerCase() === name.toLowerCase()) return [i, val.slice(name.length)];
  }
  throw BAD;
}

function getnum(s: string, fixed: boolean): [number, string] {
  if (!isDigitAt(s, 0)) throw BAD;
  if (!isDigitAt(s, 1)) {
    if (fixed) throw BAD;
    return [s.charCodeAt(0) - 48, s.slice(1)];
  }
  return [(s.charCodeAt(0) - 48) * 10 + s.charCodeAt(1) - 48, s.slice(2)];
}

function getnum3(s: string, fixed: boolean): [number, string] {
  let n = 0;
  let i = 0;
  for (; i < 3 && isDigitAt(s, i); i++) n = n * 10 + s.charCodeAt(i) - 48;
  if (i === 0 || (fixed && i !== 3)) throw BAD;
  return [n, s.slice(i)];
}

const cutspace = (s: string) => s.replace(/^ +/, '');

function skip(value: string, prefix: string): string {
  while (prefix.length > 0) {
    if (prefix[0] === ' ') {
      if (value.length > 0 && value[0] !== ' ') throw BAD;
      prefix = cutspace(prefix);
      value = cutspace(value);
      continue;
    }
    if (value.length === 0 || value[0] !== prefix[0]) throw BAD;
    prefix = prefix.slice(1);
    value = value.slice(1);
  }
  return value;
}

function parseNanoseconds(value: string, nbytes: number): number {
  if (value[0] !== '.' && value[0] !== ',') throw BAD;
  if (nbytes > 10) nbytes = 10;
  const digits = value.slice(1, nbytes);
  if (!/^\d*$/.test(digits) || digits === '') throw BAD;
  return Number(digits) * 10 ** (10 - nbytes);
}

function parseSignedOffset(value: string): number {
  const sign = value[0];
  if (sign !== '-' && sign !== '+') return 0;
  let i = 1;
  while (isDigitAt(value, i)) i++;
  if (i === 1) return 0;
  const x = Number(value.slice(1, i));
  if (x > 23) return 0;
  return i;
}

function parseTimeZone(value: string): number {
  if (value.length < 3) return 0;
  if (value.startsWith('ChST') || value.startsWith('MeST')) return 4;
  if (value.startsWith('GMT')) {
    const n = parseSignedOffset(value.slice(3));
    return 3 + n;
  }
  if (value[0] === '+' || value[0] === '-') return parseSignedOffset(value);
  let nUpper = 0;
  while (nUpper < 6 && nUpper < value.length && value[nUpper] >= 'A' && value[nUpper] <= 'Z') nUpper++;
  switch (nUpper) {
    case 3:
      return 3;
    case 4:
      return value[3] === 'T' || value.startsWith('WITA') ? 4 : 0;
    case 5:
      return value[4] === 'T' ? 5 : 0;
  }
  return 0;
}


function parseError(layout: string, value: string, layoutElem: string, valueElem: string, message: string): TimeParseError {
  if (message === '') {
    return new TimeParseError(`parsing time ${timeQuote(value)} as ${timeQuote(layout)}: cannot parse ${timeQuote(valueElem)} as ${timeQuote(layoutElem)}`);
  }
  return new TimeParseError(`parsing time ${timeQuote(value)}${message}`);
}

/** time.Parse(layout, value) with UTC as the local zone. Throws TimeParseError with Go's message. */
export function parseTime(layoutIn: string, valueIn: string): GoTime {
  let layout = layoutIn;
  let value = valueIn;
  let amSet = false;
  let pmSet = false;
  let year = 0;
  let month = -1;
  let day = -1;
  let yday = -1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let utc = false;
  let zoneOffset: number | null = null;
  let zoneName = '';
  for (;;) {
    const { prefix, std, suffix } = nextStdChunk(layout);
    const stdstr = layout.slice(prefix.length, layout.length - suffix.length);
    try {
      value = skip(value, prefix);
    } catch {
      throw parseError(layoutIn, valueIn, prefix, value, '');
    }
    if (std.kind === 'none') {
      if (value.length !== 0) throw parseError(layoutIn, valueIn, '', value, `: extra text: ${timeQuote(value)}`);
      break;
    }
    layout = suffix;
    const hold = value;
    let rangeErr = '';
    try {
      switch (std.kind) {
        case 'year': {
          if (value.length < 2) throw BAD;
          const p = value.slice(0, 2);
          if (!/^\d\d$/.test(p)) throw BAD;
          value = value.slice(2);
          year = Number(p);
          year += year >= 69 ? 1900 : 2000;
          break;
        }
        case 'longYear': {
          if (value.length < 4 || !isDigitAt(value, 0)) throw BAD;
          const p = value.slice(0, 4);
          if (!/^\d{4}$/.test(p)) throw BAD;
          value = value.slice(4);
          year = Number(p);
          break;
        }
        case 'month':
          [month, value] = lookup(SHORT_MONTHS, value);
          month++;
          break;
        case 'longMonth':
          [month, value] = lookup(LONG_MONTHS, value);
          month++;
          break;
        case 'numMonth':
        case 'zeroMonth':
          [month, value] = getnum(value, std.kind === 'zeroMonth');
          if (month <= 0 || month > 12) rangeErr = 'month';
          break;
        case 'weekDay':
          [, value] = lookup(SHORT_DAYS, value);
          break;
        case 'longWeekDay':
          [, value] = lookup(LONG_DAYS, value);
          break;
        case 'day':
        case 'underDay':
        case 'zeroDay':
          if (std.kind === 'underDay' && value[0] === ' ') value = value.slice(1);
          [day, value] = getnum(value, std.kind === 'zeroDay');
          break;
        case 'underYearDay':
        case 'zeroYearDay':
          for (let i = 0; i < 2; i++) if (std.kind === 'underYearDay' && value[0] === ' ') value = value.slice(1);
          [yday, value] = getnum3(value, std.kind === 'zeroYearDay');
          break;
        case 'hour':
          [hour, value] = getnum(value, false);
          if (hour < 0 || hour >= 24) rangeErr = 'hour';
          break;
        case 'hour12':
        case 'zeroHour12':
          [hour, value] = getnum(value, std.kind === 'zeroHour12');
          if (hour < 0 || hour > 12) rangeErr = 'hour';
          break;
        case 'minute':
        case 'zeroMinute':
          [min, value] = getnum(value, std.kind === 'zeroMinute');
          if (min < 0 || min >= 60) rangeErr = 'minute';
          break;
        case 'second':
        case 'zeroSecond': {
          [sec, value] = getnum(value, std.kind === 'zeroSecond');
          if (sec < 0 || sec >= 60) {
            rangeErr = 'second';
            break;
          }
          // A fractional second in the value that the layout does not mention is accepted.
          if (value.length >= 2 && (value[0] === '.' || value[0] === ',') && isDigitAt(value, 1)) {
            const next = nextStdChunk(layout).std.kind;
            if (next === 'fracSecond0' || next === 'fracSecond9') break;
            let n = 2;
            while (n < value.length && isDigitAt(value, n)) n++;
            nsec = parseNanoseconds(value, n);
            value = value.slice(n);
          }
          break;
        }
        case 'PM':
        case 'pm': {
          if (value.length < 2) throw BAD;
          const p = value.slice(0, 2);
          value = value.slice(2);
          const [pmText, amText] = std.kind === 'PM' ? ['PM', 'AM'] : ['pm', 'am'];
          if (p === pmText) pmSet = true;
          else if (p === amText) amSet = true;
          else throw BAD;
          break;
        }
        case 'iso8601TZ':
        case 'iso8601ShortTZ':
        case 'iso8601ColonTZ':
        case 'iso8601SecondsTZ':
        case 'iso8601ColonSecondsTZ':
        case 'numTZ':
        case 'numShortTZ':
        case 'numColonTZ':
        case 'numSecondsTz':
        case 'numColonSecondsTZ': {
          if (std.kind.startsWith('iso') && value[0] === 'Z') {
            value = value.slice(1);
            utc = true;
            break;
          }
          let sign: string, hh: string, mm: string, ss: string;
          const k = std.kind;
          if (k === 'iso8601ColonTZ' || k === 'numColonTZ') {
            if (value.length < 6 || value[3] !== ':') throw BAD;
            [sign, hh, mm, ss, value] = [value[0], value.slice(1, 3), value.slice(4, 6), '00', value.slice(6)];
          } else if (k === 'numShortTZ' || k === 'iso8601ShortTZ') {
            if (value.length < 3) throw BAD;
            [sign, hh, mm, ss, value] = [value[0], value.slice(1, 3), '00', '00', value.slice(3)];
          } else if (k === 'iso8601ColonSecondsTZ' || k === 'numColonSecondsTZ') {
            if (value.length < 9 || value[3] !== ':' || value[6] !== ':') throw BAD;
            [sign, hh, mm, ss, value] = [value[0], value.slice(1, 3), value.slice(4, 6), value.slice(7, 9), value.slice(9)];
          } else if (k === 'iso8601SecondsTZ' || k === 'numSecondsTz') {
            if (value.length < 7) throw BAD;
            [sign, hh, mm, ss, value] = [value[0], value.slice(1, 3), value.slice(3, 5), value.slice(5, 7), value.slice(7)];
          } else {
            if (value.length < 5) throw BAD;
            [sign, hh, mm, ss, value] = [value[0], value.slice(1, 3), value.slice(3, 5), '00', value.slice(5)];
          }
          const [hr] = getnum(hh, true);
          const [mi] = getnum(mm, true);
          const [se] = getnum(ss, true);
          if (hr > 24) rangeErr = 'time zone offset hour';
          if (mi > 60) rangeErr = 'time zone offset minute';
          if (se > 60) rangeErr = 'time zone offset second';
          zoneOffset = (hr * 60 + mi) * 60 + se;
          if (sign === '-') zoneOffset = -zoneOffset;
          else if (sign !== '+') throw BAD;
          break;
        }
        case 'TZ': {
          if (value.startsWith('UTC')) {
            utc = true;
            value = value.slice(3);
            break;
          }
          const n = parseTimeZone(value);
          if (n === 0) throw BAD;
          zoneName = value.slice(0, n);
          value = value.slice(n);
          break;
        }
        case 'fracSecond0': {
          const ndigit = 1 + std.digits;
          if (value.length < ndigit) throw BAD;
          nsec = parseNanoseconds(value, ndigit);
          value = value.slice(ndigit);
          break;
        }
        case 'fracSecond9': {
          if (value.length < 2 || (value[0] !== '.' && value[0] !== ',') || !isDigitAt(value, 1)) break;
          let i = 0;
          while (i + 1 < value.length && isDigitAt(value, i + 1)) i++;
          nsec = parseNanoseconds(value, 1 + i);
          value = value.slice(1 + i);
          break;
        }
      }
    } catch (e) {
      if (!(e instanceof Bad)) throw e;
      throw parseError(layoutIn, valueIn, stdstr, hold, '');
    }
    if (rangeErr) throw parseError(layoutIn, valueIn, stdstr, value, `: ${rangeErr} out of range`);
  }
  if (pmSet && hour < 12) hour += 12;
  else if (amSet && hour === 12) hour = 0;
  if (yday >= 0) {
    let d = 0;
    let m = 0;
    if (isLeapYear(year)) {
      if (yday === 31 + 29) {
        m = 2;
        d = 29;
      } else if (yday > 31 + 29) yday--;
    }
    if (yday < 1 || yday > 365) throw parseError(layoutIn, valueIn, '', value, ': day-of-year out of range');
    if (m === 0) {
      m = Math.floor((yday - 1) / 31) + 1;
      if (DAYS_BEFORE[m] < yday) m++;
      d = yday - DAYS_BEFORE[m - 1];
    }
    if (month >= 0 && month !== m) throw parseError(layoutIn, valueIn, '', value, ': day-of-year does not match month');
    month = m;
    if (day >= 0 && day !== d) throw parseError(layoutIn, valueIn, '', value, ': day-of-year does not match day');
    day = d;
  } else {
    if (month < 0) month = 1;
    if (day < 0) day = 1;
  }
  if (day < 1 || day > daysInMonth(year, month)) throw parseError(layoutIn, valueIn, '', value, ': day out of range');
  const wall = daysFromCivil(year, month, day) * 86400 + hour * 3600 + min * 60 + sec;
  if (utc) return { sec: wall, nsec, offset: 0 };
  if (zoneOffset !== null) return { sec: wall - zoneOffset, nsec, offset: zoneOffset };
  if (zoneName !== '') {
    // Unknown abbreviations get offset 0, except GMT±h.
    let offset = 0;
    if (zoneName.length > 3 && zoneName.startsWith('GMT')) offset = Number(zoneName.slice(3)) * 3600;
    return { sec: wall - offset, nsec, offset };
  }
  return { sec: wall, nsec, offset: 0 };
}

/** time.Parse(time.RFC3339, text), or undefined where Go reports an error. */
export function tryParseRFC3339(text: string): GoTime | undefined {
  try {
    return parseTime(RFC3339, text);
  } catch (e) {
    if (e instanceof TimeParseError) return undefined;
    throw e;
  }
}

/** Go's error text for time.Parse(time.RFC3339, text) (what metav1.Time reports), undefined when it parses. */
export function rfc3339Error(text: string): string | undefined {
  try {
    parseTime(RFC3339, text);
    return undefined;
  } catch (e) {
    if (e instanceof TimeParseError) return e.message;
    throw e;
  }
}
