/**
 * A Go value that has no JSON form, standing where kube-apiserver's unstructured data would hold it: a
 * MutatingAdmissionPolicy's ApplyConfiguration is the Go map of its Object literal (dynamic.ObjectVal's
 * Value()), whose fields may hold a time.Time, a time.Duration, a structpb.NullValue and the like.
 * structured-merge-diff refuses such a value when it checks the apply configuration against the schema,
 * and prints it in its message with %T, %v or %#v: the three renderings are kept here.
 *
 * It is never part of a document that leaves the checks: it exists only between the conversion of an
 * apply configuration and the schema check that refuses it.
 */
import { civilFromDays } from './calendar.js';
import { formatDuration } from './duration.js';

export class GoNative {
  constructor(
    /** `%T`: `time.Time`. */
    readonly goType: string,
    /** `%v` (the value's String() where it has one). */
    readonly v: string,
    /** `%#v` (the value's GoString() where it has one). */
    readonly sharpV: string,
  ) {}
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const pad = (n: number | bigint, w: number) => String(n).padStart(w, '0');

/**
 * A time.Time in UTC, from nanoseconds since the Unix epoch: String() is `2006-01-02 15:04:05.999999999
 * +0000 UTC`, GoString() `time.Date(2006, time.January, 2, 15, 4, 5, 0, time.UTC)`.
 */
export function goTime(unixNanos: bigint): GoNative {
  const NS = 1_000_000_000n;
  let sec = unixNanos / NS;
  let nsec = unixNanos % NS;
  if (nsec < 0n) {
    nsec += NS;
    sec -= 1n;
  }
  const days = Number(sec >= 0n ? sec / 86400n : (sec - 86399n) / 86400n);
  const rem = Number(sec - BigInt(days) * 86400n);
  const { year, month, day } = civilFromDays(days);
  const hour = Math.floor(rem / 3600);
  const minute = Math.floor((rem % 3600) / 60);
  const second = rem % 60;
  const fraction = nsec === 0n ? '' : '.' + pad(nsec, 9).replace(/0+$/, '');
  const yearText = year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
  const v = `${yearText}-${pad(month, 2)}-${pad(day, 2)} ${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}${fraction} +0000 UTC`;
  const sharpV = `time.Date(${year}, time.${MONTHS[month - 1]}, ${day}, ${hour}, ${minute}, ${second}, ${nsec}, time.UTC)`;
  return new GoNative('time.Time', v, sharpV);
}

/** A time.Duration: String() is `1m30s`; %#v is the nanoseconds. */
export function goDuration(ns: bigint): GoNative {
  return new GoNative('time.Duration', formatDuration(ns), String(ns));
}

/** CEL's null as its Go Value(): structpb.NullValue_NULL_VALUE (an enum: String() `NULL_VALUE`, %#v `0`). */
export const GO_NULL_VALUE = new GoNative('structpb.NullValue', 'NULL_VALUE', '0');

/** CEL bytes as their Go Value(): a []byte (%v `[97 98]`, %#v `[]byte{0x61, 0x62}`). */
export function goBytes(bytes: Uint8Array): GoNative {
  const items = Array.from(bytes);
  return new GoNative('[]uint8', `[${items.join(' ')}]`, `[]byte{${items.map((b) => '0x' + b.toString(16)).join(', ')}}`);
}
