import { describe, expect, it } from 'vitest';
import { jsonLineLogger, type LogRecord } from '../../src/observe/index.js';
import { isoTime } from '../../src/observe/iso-time.js';

/** What the log line must be: JSON.stringify of time, level, msg, then the record's other fields. */
function expectedLine(time: string, record: LogRecord): string {
  const ordered: Record<string, unknown> = { time: 'time' in record ? record.time : time, level: record.level, msg: record.msg };
  for (const key of Object.keys(record)) if (key !== 'time' && key !== 'level' && key !== 'msg') ordered[key] = record[key];
  return JSON.stringify(ordered) + '\n';
}

describe('isoTime', () => {
  it('writes what Date.prototype.toISOString writes, across seconds, years and signs', () => {
    const times = [0, -1, 1, 999, 1000, 1001, -999, -1000, -1001, 1_764_777_599_999, 1_764_777_600_000, 253_402_300_799_999, 253_402_300_800_000, -62_198_755_200_001, 8.64e15, -8.64e15];
    let seed = 7;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      times.push(Math.floor((seed / 2 ** 31 - 0.5) * 2 * 4e14));
    }
    // Consecutive milliseconds in and across one second, as a server's calls come.
    for (let ms = 1_764_777_598_990; ms < 1_764_777_601_010; ms++) times.push(ms);
    for (const ms of times) expect(isoTime(ms), String(ms)).toBe(new Date(ms).toISOString());
  });

  it('falls back to Date for a time that is not a whole number of milliseconds, and throws as it does when invalid', () => {
    expect(isoTime(1.5)).toBe(new Date(1.5).toISOString());
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });

  it('is the current time by default', () => {
    const before = Date.now();
    const at = Date.parse(isoTime());
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });
});

describe('jsonLineLogger', () => {
  const records: LogRecord[] = [
    { level: 'info', msg: 'request', method: 'POST', path: '/mutate', status: 200, durationMs: 0.123, uid: '705ab4f5-6393-11e8-b7cc-42010a800002', outcome: 'patched', patchOps: 8 },
    { level: 'warn', msg: 'quote " backslash \\ newline \n tab \t nul \u0000 del \u007f', path: '/a\u2028b\u2029' },
    { level: 'error', msg: 'surrogates', lone: 'x\ud800y', pair: '😀', low: '\udc00', error: 'Error: boom\n    at f (x.js:1:1)' },
    { level: 'info', msg: 'numbers', a: -0, b: Number.NaN, c: Number.POSITIVE_INFINITY, d: 1e21, e: 5e-7, f: 2 ** 53 + 2 },
    { level: 'info', msg: 'left out', u: undefined, fn: () => 1, sym: Symbol('s'), n: null, t: true, obj: { x: [1, 'two', null] }, date: new Date(0) },
    { level: 'info', msg: 'own time', time: 'the record says', z: 1 },
    { level: 'info', msg: '' },
  ];

  it('writes each record as JSON.stringify writes time, level, msg and the other fields', () => {
    const lines: string[] = [];
    const log = jsonLineLogger((line) => lines.push(line), { now: () => new Date(Date.UTC(2026, 11, 3, 15, 47, 1, 42)) });
    for (const r of records) log(r);
    expect(lines).toEqual(records.map((r) => expectedLine('2026-12-03T15:47:01.042Z', r)));
  });

  it('stamps the current time by default and drops records below its level', () => {
    const lines: string[] = [];
    const log = jsonLineLogger((line) => lines.push(line), { minLevel: 'warn' });
    const before = Date.now();
    log({ level: 'info', msg: 'dropped' });
    log({ level: 'warn', msg: 'kept' });
    expect(lines).toHaveLength(1);
    const parsed = JSON.parse(lines[0]) as { time: string; level: string; msg: string };
    expect(Object.keys(parsed)).toEqual(['time', 'level', 'msg']);
    expect(Date.parse(parsed.time)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(parsed.time)).toBeLessThanOrEqual(Date.now());
    expect(lines[0]).toBe(expectedLine(parsed.time, { level: 'warn', msg: 'kept' }));
  });
});
