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
    write(jsonLine(now().toISOString(), record));
  };
}

/**
 * `{"time":…,"level":…,"msg":…,<the other fields in their order>}` and a newline, exactly as
 * JSON.stringify of that object writes it (a record's own `time` takes the first place; a field whose
 * value JSON leaves out, such as undefined, is left out), without building the object: one per request.
 */
function jsonLine(time: string, record: LogRecord): string {
  let line = '';
  const field = (key: string, value: unknown) => {
    const text = JSON.stringify(value);
    if (text !== undefined) line += `${line === '' ? '{' : ','}${JSON.stringify(key)}:${text}`;
  };
  field('time', 'time' in record ? record.time : time);
  field('level', record.level);
  field('msg', record.msg);
  for (const key in record) if (key !== 'time' && key !== 'level' && key !== 'msg') field(key, record[key]);
  return (line === '' ? '{' : line) + '}\n';
}

/** Drops every record (the CLI and benchmarks). */
export const silentLogger: Logger = () => {};
