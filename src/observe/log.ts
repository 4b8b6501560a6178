/** Structured logs: one JSON object per line, so any log pipeline can index the fields. */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogRecord {
  level: LogLevel;
  msg: string;
  [field: string]: unknown;
}

export type Logger = (record: LogRecord) => void;

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function isLogLevel(value: string): value is LogLevel {
  return Object.prototype.hasOwnProperty.call(LEVELS, value);
}

/**
 * A logger that writes each record at or above `minLevel` as one JSON line through `write` (stdout on
 * Node, console.log on Workers/Lambda). `now` is injected so tests get stable times.
 */
export function jsonLineLogger(
  write: (line: string) => void,
  { minLevel = 'info', now = () => new Date() }: { minLevel?: LogLevel; now?: () => Date } = {},
): Logger {
  const threshold = LEVELS[minLevel];
  return (record) => {
    if (LEVELS[record.level] < threshold) return;
    // time, level and msg first, then the fields in their order; one object built per line (one per request).
    const line: Record<string, unknown> = { time: now().toISOString(), level: record.level, msg: record.msg };
    for (const key in record) if (key !== 'level' && key !== 'msg') line[key] = record[key];
    write(JSON.stringify(line) + '\n');
  };
}

/** Drops every record (the CLI and benchmarks). */
export const silentLogger: Logger = () => {};
