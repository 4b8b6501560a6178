/**
 * What `kyverno test` prints: a table per test (ID, POLICY, RULE, RESOURCE, RESULT, REASON, and MESSAGE
 * with --detailed-results), "Test Summary: N tests passed and M tests failed", and with -o junit a JUnit
 * XML report (one testsuite per test file and policy) for CI. Failed rows are followed by their message
 * (the diff of a patched resource).
 */
import type { Counts, Row } from './check.js';

/** A row of the table: `kyverno apply -t` shows results a test row has no need of (Error). */
export type TableRow = Omit<Row, 'result' | 'isFailure'> & { result: string };

/**
 * Kyverno's printer titles the first column with the row count past 10 rows: "ID (11)" (output/table/
 * printer.go RowLengthTitle: length > 10; lensesio/tableprinter writes `%s (%d) ` and the table writer trims it).
 */
function idHeader(rows: number): string {
  return rows > 10 ? `ID (${rows})` : 'ID';
}

/** Kyverno's result table (ID, POLICY, RULE, RESOURCE, RESULT, REASON, and MESSAGE when detailed). */
export function formatTable(rows: readonly TableRow[], detailed: boolean): string {
  const header = [idHeader(rows.length), 'POLICY', 'RULE', 'RESOURCE', 'RESULT', 'REASON', ...(detailed ? ['MESSAGE'] : [])];
  const cells = rows.map((r) => [String(r.id), r.policy, r.rule, r.resource, r.result, r.reason, ...(detailed ? [r.message.split('\n')[0]] : [])]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: readonly string[]) => `│ ${c.map((v, i) => v.padEnd(widths[i])).join(' │ ')} │\n`;
  const rule = `│${widths.map((w) => '─'.repeat(w + 2)).join('│')}│\n`;
  return rule + line(header) + rule + cells.map(line).join('') + rule;
}

/** The table, then the message of every failed row (the patched resource diff, the rule's message). */
export function formatRows(rows: readonly Row[], detailed: boolean): string {
  if (rows.length === 0) return '';
  let out = formatTable(rows, detailed);
  const failures = rows.filter((r) => r.isFailure && r.message !== '');
  for (const r of failures) out += `\n${r.id}. ${r.policy} / ${r.rule} / ${r.resource}: ${r.reason}\n${indent(r.message)}\n`;
  return out;
}

function indent(text: string): string {
  return text.split('\n').map((l) => `   ${l}`).join('\n');
}

export function formatSummary(counts: Counts, failOnly: boolean): string {
  if (failOnly) return `\nTest Summary: ${counts.fail} out of ${counts.pass + counts.skip + counts.fail} tests failed\n`;
  return `\nTest Summary: ${counts.pass + counts.skip} tests passed and ${counts.fail} tests failed\n`;
}

/**
 * Characters XML 1.0 does not allow (its Char production): control characters other than tab and
 * newlines, U+FFFE, U+FFFF and a lone surrogate (a value of a resource in a diff may hold any of them),
 * which a CI's JUnit reader would refuse the whole report for.
 */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function xml(text: string): string {
  return text.replace(NOT_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export interface JunitSuite {
  /** The test file. */
  file: string;
  rows: readonly Row[];
}

export function formatJunit(suites: readonly JunitSuite[], detailed: boolean): string {
  const all = suites.flatMap((s) => s.rows);
  let out = `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="${all.length}" failures="${all.filter((r) => r.isFailure).length}">\n`;
  for (const suite of suites) {
    const byPolicy = new Map<string, Row[]>();
    for (const r of suite.rows) byPolicy.set(r.policy, [...(byPolicy.get(r.policy) ?? []), r]);
    for (const [policy, rows] of byPolicy) {
      const failures = rows.filter((r) => r.isFailure).length;
      out += ` <testsuite name="${xml(policy)}" file="${xml(suite.file)}" tests="${rows.length}" failures="${failures}">\n`;
      for (const r of rows) {
        out += `  <testcase classname="${xml(r.rule)}" name="${xml(r.resource)}">\n`;
        const body = `Policy: ${r.policy}\nRule: ${r.rule}\nResource: ${r.resource}\nResult: ${r.result}\nReason: ${r.reason}${detailed || r.isFailure ? `\nMessage: ${r.message}` : ''}`;
        if (r.isFailure) out += `   <failure message="${xml(r.reason)}">${xml(body)}</failure>\n`;
        else out += `   <system-out>${xml(body)}</system-out>\n`;
        out += '  </testcase>\n';
      }
      out += ' </testsuite>\n';
    }
  }
  return `${out}</testsuites>\n`;
}
