/**
 * `kyverno test -o json|yaml|markdown`: the result rows as data (commands/test/output.go
 * printOutputFormats). Kyverno prints one such block per test among its progress lines; Amender writes
 * one document for the whole run (the report goes elsewhere), so a script can read it whole. Each row has
 * Kyverno's keys (ID, POLICY, RULE, RESOURCE, RESULT, REASON, and Message with --detailed-results) and
 * FILE, the test file, since IDs restart with each file as in the tables.
 */
import { jsonOutput, yamlOutput } from '../output.js';
import type { Row } from './check.js';
import type { JunitSuite } from './output.js';

export const DATA_FORMATS = ['json', 'yaml', 'markdown'] as const;
export type DataFormat = (typeof DATA_FORMATS)[number];

function rowsOf(suites: readonly JunitSuite[], failOnly: boolean): { file: string; rows: Row[] }[] {
  return suites.map((s) => ({ file: s.file, rows: s.rows.filter((r) => !failOnly || r.isFailure) }));
}

/**
 * A row as data, its keys in the order Kyverno prints them: it marshals each row as a Go map, and both
 * encoding/json and yaml.v3 write a map's keys sorted (byte order: upper case first, so Message after ID).
 */
function record(file: string, r: Row, detailed: boolean): Record<string, string | number> {
  return { FILE: file, ID: r.id, ...(detailed ? { Message: r.message } : {}), POLICY: r.policy, REASON: r.reason, RESOURCE: r.resource, RESULT: r.result, RULE: r.rule };
}

/** A table cell: a `|` or a line break would end the cell or the row. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

function markdown(file: string, rows: readonly Row[], detailed: boolean): string {
  const headers = ['ID', 'POLICY', 'RULE', 'RESOURCE', 'RESULT', 'REASON', ...(detailed ? ['MESSAGE'] : [])];
  let out = `${cell(file)}\n\n| ${headers.join(' | ')} |\n|${'----|'.repeat(headers.length)}\n`;
  for (const r of rows) {
    const cells = [String(r.id), r.policy, r.rule, r.resource, r.result, r.reason, ...(detailed ? [r.message] : [])];
    out += `| ${cells.map(cell).join(' | ')} |\n`;
  }
  return out;
}

/** The rows of every test file (only the failed ones with --fail-only) in `format`. */
export function formatData(format: DataFormat, suites: readonly JunitSuite[], detailed: boolean, failOnly: boolean): string {
  const files = rowsOf(suites, failOnly);
  if (format === 'markdown') return files.map((f) => markdown(f.file, f.rows, detailed)).join('\n');
  const records = files.flatMap((f) => f.rows.map((r) => record(f.file, r, detailed)));
  return format === 'json' ? `${jsonOutput(records)}\n` : yamlOutput(records);
}
