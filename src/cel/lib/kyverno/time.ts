import { Duration, Timestamp } from '../../engine/values.js';
import type { CelLibrary, LibraryRegistrar } from '../../library.js';
import { celError } from '../errors.js';

/**
 * Kyverno's time library (kyverno/sdk `extensions/cel/libs/time`): `time.now()`, `time.truncate(ts, d)`
 * (Go's Time.Truncate: down to a multiple of d since the zero time; d <= 0 leaves ts), and
 * `time.toCron(ts)` ("minute hour day month weekday", in the timestamp's zone: UTC unless it was
 * parsed with an offset, which Go's time.Time keeps).
 */

const NS_PER_MS = 1_000_000n;
/** Nanoseconds from Go's zero time (year 1) to the Unix epoch: Truncate counts from year 1. */
const ZERO_TO_UNIX_NS = 62_135_596_800n * 1_000_000_000n;

function truncate(ts: Timestamp, d: Duration): Timestamp {
  if (d.ns <= 0n) return ts;
  const sinceZero = ts.ns + ZERO_TO_UNIX_NS;
  let rem = sinceZero % d.ns;
  if (rem < 0n) rem += d.ns;
  return new Timestamp(ts.ns - rem, ts.offset);
}

function toCron(ts: Timestamp): string {
  // Go reads the fields in the timestamp's own zone: a time parsed with +02:00 gives its local hour.
  const ms = Number(ts.ns / NS_PER_MS - (ts.ns % NS_PER_MS < 0n ? 1n : 0n)) + ts.offset * 1000;
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) throw celError('timestamp out of range');
  return `${date.getUTCMinutes()} ${date.getUTCHours()} ${date.getUTCDate()} ${date.getUTCMonth() + 1} ${date.getUTCDay()}`;
}

export const timeLibrary: CelLibrary = {
  name: 'kyverno.time',
  register(r: LibraryRegistrar) {
    r.registerFunction('time.now(): google.protobuf.Timestamp', () => new Timestamp(BigInt(Date.now()) * NS_PER_MS));
    r.registerFunction('time.truncate(google.protobuf.Timestamp, google.protobuf.Duration): google.protobuf.Timestamp', truncate);
    r.registerFunction('time.toCron(google.protobuf.Timestamp): string', toCron);
  },
};
