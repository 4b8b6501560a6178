import { daysInMonth } from '../k8s/index.js';
import { goQuote } from './gofmt.js';

const LAYOUT = '2006-01-02T15:04:05Z07:00';

/**
 * Go's `time.Parse(time.RFC3339, s)` verdict (what metav1.Time's UnmarshalJSON reports): undefined when
 * the string parses, else Go's error text, element by element (`cannot parse "x" as "2006"`, `month out of
 * range`, `extra text`).
 */
export function rfc3339Error(s: string): string | undefined {
  const p = new Rfc3339(s);
  return p.parse();
}

const isDigit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

class Rfc3339 {
  private rest: string;
  constructor(private readonly value: string) {
    this.rest = value;
  }

  private cannot(layoutElem: string, valueElem: string): string {
    return `parsing time ${goQuote(this.value)} as ${goQuote(LAYOUT)}: cannot parse ${goQuote(valueElem)} as ${goQuote(layoutElem)}`;
  }

  private message(msg: string): string {
    return `parsing time ${goQuote(this.value)}${msg}`;
  }

  /** Go getnum: one or two digits (exactly two when fixed). */
  private num(fixed: boolean): number | undefined {
    const s = this.rest;
    if (!isDigit(s, 0)) return undefined;
    if (!isDigit(s, 1)) {
      if (fixed) return undefined;
      this.rest = s.slice(1);
      return Number(s[0]);
    }
    this.rest = s.slice(2);
    return Number(s.slice(0, 2));
  }

  private literal(lit: string): boolean {
    if (!this.rest.startsWith(lit)) return false;
    this.rest = this.rest.slice(lit.length);
    return true;
  }

  parse(): string | undefined {
    let hold = this.rest;
    if (this.rest.length < 4 || !isDigit(this.rest, 0) || !/^\d{4}/.test(this.rest)) return this.cannot('2006', hold);
    const year = Number(this.rest.slice(0, 4));
    this.rest = this.rest.slice(4);
    if (!this.literal('-')) return this.cannot('-', this.rest);
    hold = this.rest;
    const month = this.num(true);
    if (month === undefined) return this.cannot('01', hold);
    if (month < 1 || month > 12) return this.message(': month out of range');
    if (!this.literal('-')) return this.cannot('-', this.rest);
    hold = this.rest;
    const day = this.num(true);
    if (day === undefined) return this.cannot('02', hold);
    if (!this.literal('T')) return this.cannot('T', this.rest);
    hold = this.rest;
    const hour = this.num(false);
    if (hour === undefined) return this.cannot('15', hold);
    if (hour >= 24) return this.message(': hour out of range');
    if (!this.literal(':')) return this.cannot(':', this.rest);
    hold = this.rest;
    const minute = this.num(true);
    if (minute === undefined) return this.cannot('04', hold);
    if (minute >= 60) return this.message(': minute out of range');
    if (!this.literal(':')) return this.cannot(':', this.rest);
    hold = this.rest;
    const second = this.num(true);
    if (second === undefined) return this.cannot('05', hold);
    if (second >= 60) return this.message(': second out of range');
    // A fractional second is accepted after the seconds even though the layout has none.
    if (this.rest.length >= 2 && (this.rest[0] === '.' || this.rest[0] === ',') && isDigit(this.rest, 1)) {
      let n = 2;
      while (isDigit(this.rest, n)) n++;
      this.rest = this.rest.slice(n);
    }
    hold = this.rest;
    if (this.rest.startsWith('Z')) {
      this.rest = this.rest.slice(1);
    } else {
      const r = this.rest;
      if (r.length < 6 || r[3] !== ':' || (r[0] !== '+' && r[0] !== '-') || !/^\d\d$/.test(r.slice(1, 3)) || !/^\d\d$/.test(r.slice(4, 6))) {
        return this.cannot('Z07:00', hold);
      }
      if (Number(r.slice(1, 3)) > 24) return this.message(': time zone offset hour out of range');
      if (Number(r.slice(4, 6)) >= 60) return this.message(': time zone offset minute out of range');
      this.rest = r.slice(6);
    }
    if (this.rest.length > 0) return this.message(`: extra text: ${goQuote(this.rest)}`);
    if (day < 1 || day > daysInMonth(year, month)) return this.message(': day out of range');
    return undefined;
  }
}
