/** Kyverno's time functions (pkg/engine/jmespath/time.go) on Go time semantics; the local zone is UTC. */
import {
  addDuration,
  compareTimes,
  formatDuration,
  formatRFC3339,
  fromUnixMillis,
  parseDuration,
  parseInt64,
  strconvQuote,
  parseTime,
  RFC3339,
  subTimes,
  timeFields,
  truncateTime,
  type GoTime,
} from '../../../go/index.js';
import { FunctionError } from '../errors.js';
import type { CallContext, FunctionDef } from '../registry.js';
import type { Value } from '../values.js';

const S = { types: ['string' as const] };

/** Go errors from time.Parse / ParseDuration are returned unwrapped by Kyverno. */
function attempt<T>(fn: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new FunctionError(fn, (e as Error).message);
  }
}

const time = (fn: string, v: Value) => attempt(fn, () => parseTime(RFC3339, v as string));
const duration = (fn: string, v: Value) => attempt(fn, () => parseDuration(v as string));
const now = (ctx: CallContext): GoTime => fromUnixMillis(ctx.now());


export const timeFunctions: FunctionDef[] = [
  {
    name: 'time_since',
    args: [S, S, S],
    returns: ['string'],
    note: 'calculate the difference between a start and end period of time where the end may either be a static definition or the then-current time',
    call: ([layout, start, end], ctx) => {
      const l = (layout as string) || RFC3339;
      const t1 = attempt('time_since', () => parseTime(l, start as string));
      const t2 = (end as string) === '' ? now(ctx) : attempt('time_since', () => parseTime(l, end as string));
      return formatDuration(subTimes(t2, t1));
    },
  },
  {
    name: 'time_now',
    args: [],
    returns: ['string'],
    note: 'returns current time in RFC 3339 format',
    call: (_args, ctx) => formatRFC3339(now(ctx)),
  },
  {
    name: 'time_now_utc',
    args: [],
    returns: ['string'],
    note: 'returns current UTC time in RFC 3339 format',
    call: (_args, ctx) => formatRFC3339(now(ctx)),
  },
  {
    name: 'time_to_cron',
    args: [S],
    returns: ['string'],
    note: 'converts a time (RFC 3339) to a cron expression (string).',
    call: ([t]) => {
      const f = timeFields(time('time_to_cron', t));
      return `${f.minute} ${f.hour} ${f.day} ${f.month} ${f.weekday}`;
    },
  },
  {
    name: 'time_add',
    args: [S, S],
    returns: ['string'],
    note: 'adds duration (second string) to a time value (first string)',
    call: ([t, d]) => formatRFC3339(addDuration(time('time_add', t), duration('time_add', d))),
  },
  {
    name: 'time_parse',
    args: [S, S],
    returns: ['string'],
    note: 'changes a time value of a given layout to RFC 3339',
    call: ([layout, value]) => {
      const l = layout as string;
      const v = value as string;
      if (parseInt64(l) !== undefined) {
        // A numeric layout means the value is Unix seconds.
        const seconds = parseInt64(v);
        if (seconds === undefined) throw new FunctionError('time_parse', `strconv.ParseInt: parsing ${strconvQuote(v)}: ${/^[+-]?\d+$/.test(v) ? 'value out of range' : 'invalid syntax'}`);
        return formatRFC3339({ sec: Number(seconds), nsec: 0, offset: 0 });
      }
      return formatRFC3339(attempt('time_parse', () => parseTime(l, v)));
    },
  },
  {
    name: 'time_utc',
    args: [S],
    returns: ['string'],
    note: 'calcutes time in UTC from a given time in RFC 3339 format',
    call: ([t]) => formatRFC3339({ ...time('time_utc', t), offset: 0 }),
  },
  {
    name: 'time_diff',
    args: [S, S],
    returns: ['string'],
    note: 'calculate the difference between a start and end date in RFC3339 format',
    call: ([a, b]) => formatDuration(subTimes(time('time_diff', b), time('time_diff', a))),
  },
  {
    name: 'time_before',
    args: [S, S],
    returns: ['boolean'],
    note: 'checks if a time is before another time, both in RFC3339 format',
    call: ([a, b]) => compareTimes(time('time_before', a), time('time_before', b)) < 0,
  },
  {
    name: 'time_after',
    args: [S, S],
    returns: ['boolean'],
    note: 'checks if a time is after another time, both in RFC3339 format',
    call: ([a, b]) => compareTimes(time('time_after', a), time('time_after', b)) > 0,
  },
  {
    name: 'time_between',
    args: [S, S, S],
    returns: ['boolean'],
    note: 'checks if a time is between a start and end time, all in RFC3339 format',
    call: ([t, start, end]) => {
      const x = time('time_between', t);
      return compareTimes(x, time('time_between', start)) > 0 && compareTimes(x, time('time_between', end)) < 0;
    },
  },
  {
    name: 'time_truncate',
    args: [S, S],
    returns: ['string'],
    note: 'returns the result of rounding time down to a multiple of duration',
    call: ([t, d]) => formatRFC3339(truncateTime(time('time_truncate', t), duration('time_truncate', d))),
  },
];
