import { afterEach, describe, expect, it, vi } from 'vitest';
import { measuredUnsteady, noteYardstickSpread, recordedGoals, recordGoal, reportGoals, type GoalRow } from '../../bench/goals.js';
import { allowedCpus, isUnsteady, yardstickSpread, steadinessLine, UNSTEADY_SPREAD } from '../../bench/steadiness.js';

const row = (id: string, value: number): GoalRow => ({ id, label: `row ${id}`, value, unit: '×', max: 3.5, command: 'npm run bench -- 35' });

describe('bench steadiness: which goal rows were measured while the machine changed speed', () => {
  afterEach(() => vi.restoreAllMocks());

  it('reads the CPUs the process may use from /proc, bounded, and nothing from text it does not know', () => {
    expect(allowedCpus('Name:\tnode\nCpus_allowed_list:\t0-1\n')).toEqual([0, 1]);
    expect(allowedCpus('Cpus_allowed_list:\t0,2-3,7\n')).toEqual([0, 2, 3, 7]);
    expect(allowedCpus('Cpus_allowed_list:\t0-63\n')).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(allowedCpus('Cpus_allowed_list:\tx\n')).toBeUndefined();
    expect(allowedCpus('')).toBeUndefined();
  });

  it('measures how far apart the timings are, on one CPU over time and between CPUs, against the fastest', () => {
    expect(yardstickSpread([28_000], [49_000])).toBeCloseTo(0.75);
    expect(yardstickSpread([49_000], [28_000])).toBeCloseTo(0.75);
    expect(yardstickSpread([7_500, 7_600], [7_500, 7_500])).toBeCloseTo(0.0133, 3);
    // One CPU at half speed on both sides: steady over time, but the CPUs differ.
    expect(yardstickSpread([7_500, 18_000], [7_500, 18_000])).toBeCloseTo(1.4);
    expect(yardstickSpread([0], [28_000])).toBeNaN();
    expect(yardstickSpread([28_000], [Number.NaN])).toBeNaN();
    expect(yardstickSpread([], [])).toBeNaN();
  });

  it('calls a suite unsteady above the limit, or when a timing is missing', () => {
    expect(isUnsteady(UNSTEADY_SPREAD)).toBe(false);
    expect(isUnsteady(UNSTEADY_SPREAD + 0.01)).toBe(true);
    expect(isUnsteady(Number.NaN)).toBe(true);
    expect(steadinessLine('35-kyverno', [7_500, 7_600], [7_500, 7_550])).toBe('(yardstick per CPU before and after 35-kyverno: 7.50 / 7.60 → 7.50 / 7.55 µs, apart by 1 %)');
    expect(steadinessLine('35-kyverno', [7_500, 18_000], [7_500, 7_500])).toMatch(/apart by 140 %: the machine changed speed, or its CPUs differ/);
  });

  it('marks the rows of an unsteady suite in the goal table, and only those; a marked miss is still a miss', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    recordGoal(row('steady', 3.0));
    noteYardstickSpread(0, 0.05);
    const from = recordedGoals().length;
    recordGoal(row('unsteady-met', 3.0));
    recordGoal(row('unsteady-missed', 3.57));
    noteYardstickSpread(from, 0.75);

    const missed = reportGoals();
    expect(missed.map((r) => r.id)).toEqual(['unsteady-missed']);
    expect(missed.filter(measuredUnsteady).map((r) => r.id)).toEqual(['unsteady-missed']);
    const lines = log.mock.calls.map((call) => String(call[0]));
    const line = (id: string) => lines.find((l) => l.includes(`row ${id} `))!;
    expect(line('steady')).not.toContain('~');
    expect(line('unsteady-met')).toMatch(/^met .*~ yardstick timings 75 % apart$/);
    expect(line('unsteady-missed')).toMatch(/^MISSED .*~ yardstick timings 75 % apart$/);
    expect(lines.at(-1)).toMatch(/^\(~: the yardstick's timings on each CPU, before and after the row's suite, were more than 20 % apart/);
  });
});
