/**
 * Whether the machine kept its speed, on every CPU, while a suite ran. On a shared virtual machine the same
 * code can run at half speed for minutes at a time, and on one CPU only: on the machine of stop 31, JSON.parse
 * + stringify of the 1.8 KB pod-create review took 7.5 µs pinned to one CPU and 17.6–18.5 µs pinned to the
 * other for some minutes, then 7.5 µs on both, and the yardstick below 27 against 43–48 µs through most of
 * a full run (bench/JOURNAL.md, "What stop 31 measured"). A figure measured then depends on which CPU each
 * thread ran on, and a ratio misses or meets its goal by chance. bench/run.ts times the yardstick on each CPU
 * between suites; the goal rows of a suite around which the timings differ by more than UNSTEADY_SPREAD
 * are marked in the goal table. Nothing is hidden or re-run: a marked row that misses still fails
 * `--check`, and the mark says which suite to run again.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pod4k } from './fixtures.js';

/** Timings further apart than this (0.2: one 1.2× another) make the figures measured between them unsteady. */
export const UNSTEADY_SPREAD = 0.2;

/** CPUs timed at most, so that a large machine spends no more than a few seconds per suite on this. */
const MAX_CPUS = 8;

/**
 * The yardstick (JSON.parse + stringify of the 4 KB Pod review, suite 00's baseline), timed in a fresh
 * process: in the bench's own, its figure follows the heap the suites grew (40.9 µs before suite 05, 26.6
 * µs after it, on a steady machine) rather than the machine. Reads the text from stdin; prints the median
 * nanoseconds of batches of 32 over `millis`, after a warm-up.
 */
const YARDSTICK = `
const text = require('node:fs').readFileSync(0, 'utf8');
const millis = Number(process.argv[1]);
const round = () => { const t0 = process.hrtime.bigint(); for (let i = 0; i < 32; i++) JSON.stringify(JSON.parse(text)); return Number(process.hrtime.bigint() - t0) / 32; };
for (const end = performance.now() + millis / 4; performance.now() < end; ) round();
const samples = [];
for (const end = performance.now() + millis; performance.now() < end || samples.length < 20; ) samples.push(round());
samples.sort((a, b) => a - b);
process.stdout.write(String(samples[samples.length >> 1]));
`;

/** The CPUs this process may run on, from Linux's /proc (at most MAX_CPUS); undefined elsewhere. */
export function allowedCpus(status = readProcStatus()): number[] | undefined {
  const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(status ?? '')?.[1];
  if (!list) return undefined;
  const cpus: number[] = [];
  for (const part of list.split(',')) {
    const [from, to = from] = part.split('-').map(Number);
    if (!Number.isInteger(from) || !Number.isInteger(to)) return undefined;
    for (let cpu = from; cpu <= to && cpus.length < MAX_CPUS; cpu++) cpus.push(cpu);
  }
  return cpus.length > 0 ? cpus : undefined;
}

function readProcStatus(): string | undefined {
  try {
    return readFileSync('/proc/self/status', 'utf8');
  } catch {
    return undefined;
  }
}

function timeYardstick(command: string, args: string[], millis: number): number {
  try {
    const out = execFileSync(command, [...args, '-e', YARDSTICK, String(millis)], { input: JSON.stringify(pod4k()), encoding: 'utf8', timeout: 30_000, stdio: ['pipe', 'pipe', 'ignore'] });
    return Number(out);
  } catch {
    return Number.NaN;
  }
}

let pinning: boolean | undefined;

/**
 * The yardstick's median nanoseconds on each CPU (pinned with util-linux's `taskset`), over about `millis`
 * each; one unpinned timing where the CPUs or `taskset` are not there. NaN for a timing that failed.
 */
export function yardstickNs(millis = 150): number[] {
  const cpus = allowedCpus();
  pinning ??= cpus !== undefined && timeYardstick('taskset', ['-c', String(cpus[0]), process.execPath], 10) > 0;
  if (!pinning || !cpus) return [timeYardstick(process.execPath, [], millis)];
  return cpus.map((cpu) => timeYardstick('taskset', ['-c', String(cpu), process.execPath], millis));
}

/**
 * How far apart the timings taken before and after a suite are, relative to the fastest (0.5: the slowest
 * took 1.5× the fastest): the machine changed speed, or its CPUs ran at different speeds. NaN when a
 * timing is missing.
 */
export function yardstickSpread(before: readonly number[], after: readonly number[]): number {
  const all = [...before, ...after];
  if (all.length === 0 || !all.every((ns) => ns > 0)) return Number.NaN;
  return Math.max(...all) / Math.min(...all) - 1;
}

/** Whether a spread (yardstickSpread) makes the figures measured within it unsteady; an unknown spread does. */
export function isUnsteady(spread: number): boolean {
  return !(spread <= UNSTEADY_SPREAD);
}

/** The line bench/run.ts prints after a suite. */
export function steadinessLine(suite: string, before: readonly number[], after: readonly number[]): string {
  const spread = yardstickSpread(before, after);
  const apart = Number.isFinite(spread) ? `${Math.round(100 * spread)} %` : 'unknown';
  const verdict = isUnsteady(spread) ? ': the machine changed speed, or its CPUs differ; figures of this suite may not compare with other runs' : '';
  const us = (list: readonly number[]) => list.map((ns) => (ns / 1000).toFixed(2)).join(' / ');
  return `(yardstick per CPU before and after ${suite}: ${us(before)} → ${us(after)} µs, apart by ${apart}${verdict})`;
}
