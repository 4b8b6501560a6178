/**
 * The figures issue 11 sets goals for. A suite that measures one calls `recordGoal`; `bench/run.ts` prints
 * every recorded row with its goal after the suites, and with `--check` exits 1 when a figure misses its
 * goal. Figures only: nothing in `npm test` reads them. bench/run.ts notes on each row how far apart the
 * yardstick's timings around its suite were (steadiness.ts), and the table marks the rows of an unsteady suite.
 */
import { isUnsteady, UNSTEADY_SPREAD } from './steadiness.js';

export interface GoalRow {
  /** Stable identifier, e.g. `cold-start-node24-knative`. */
  id: string;
  /** The row as the README's table names it. */
  label: string;
  /** Measured figure (a ratio, microseconds, req/s ratio, milliseconds...). */
  value: number;
  /** How the figure is printed, e.g. `×`, `µs`, `ms`. */
  unit: string;
  /** The goal: the figure must be at most `max` and/or at least `min`. */
  max?: number;
  min?: number;
  /** The command that measures it, for the README table. */
  command: string;
  /** How far apart the yardstick's timings around the row's suite were (steadiness.ts yardstickSpread), when bench/run.ts took them. */
  yardstickSpread?: number;
}

const rows: GoalRow[] = [];

export function recordGoal(row: GoalRow): void {
  rows.push(row);
}

/** Notes on the rows recorded since the `from`-th how far apart the yardstick's timings around their suite were. */
export function noteYardstickSpread(from: number, spread: number): void {
  for (const row of rows.slice(from)) row.yardstickSpread = spread;
}

/** Whether a row was measured while the machine changed speed or its CPUs differed (the timings around its suite too far apart). */
export function measuredUnsteady(row: GoalRow): boolean {
  return row.yardstickSpread !== undefined && isUnsteady(row.yardstickSpread);
}

/** The rows recorded so far in this process (bench/engine-rows.ts hands them to the process that spawned it). */
export function recordedGoals(): readonly GoalRow[] {
  return rows;
}

export function goalMet(row: GoalRow): boolean {
  if (!Number.isFinite(row.value)) return false;
  if (row.max !== undefined && row.value > row.max) return false;
  if (row.min !== undefined && row.value < row.min) return false;
  return true;
}

function formatFigure(value: number, unit: string): string {
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)}${unit === '×' ? '×' : ` ${unit}`}`;
}

function formatGoal(row: GoalRow): string {
  const parts: string[] = [];
  if (row.max !== undefined) parts.push(`≤ ${formatFigure(row.max, row.unit)}`);
  if (row.min !== undefined) parts.push(`≥ ${formatFigure(row.min, row.unit)}`);
  return parts.join(' and ');
}

function unsteadyNote(row: GoalRow): string {
  if (!measuredUnsteady(row)) return '';
  return Number.isFinite(row.yardstickSpread) ? `  ~ yardstick timings ${Math.round(100 * row.yardstickSpread!)} % apart` : '  ~ yardstick not timed';
}

/** Prints the goal table; returns the rows that missed their goal. */
export function reportGoals(): GoalRow[] {
  if (rows.length === 0) return [];
  console.log('\n## Goals (issue 11)');
  const width = Math.max(...rows.map((r) => r.label.length));
  for (const row of rows) {
    const mark = goalMet(row) ? 'met   ' : 'MISSED';
    console.log(`${mark}  ${row.label.padEnd(width)}  ${formatFigure(row.value, row.unit).padStart(10)}  goal ${formatGoal(row)}${unsteadyNote(row)}`);
  }
  if (rows.some(measuredUnsteady)) {
    console.log(
      `(~: the yardstick's timings on each CPU, before and after the row's suite, were more than ${Math.round(100 * UNSTEADY_SPREAD)} % apart: the machine changed speed, or its CPUs differ; run that suite again before reading the row)`,
    );
  }
  return rows.filter((r) => !goalMet(r));
}
