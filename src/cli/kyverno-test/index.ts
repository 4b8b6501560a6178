/**
 * `amender test` on Kyverno CLI test files (`kyverno-test.yaml`): read each file's tests, run them
 * (run-test.ts) and print what `kyverno test` prints (output.ts).
 *
 *   runKyvernoTestFiles(files, io, options): Promise<{ counts, suites }>
 *
 * and the pieces `amender apply` shares: values files (`readValuesDocument`, `valuesFor`, `--set` pairs),
 * resources loaded as the Kyverno CLI loads them (`loadResources`, `normalizeResource`), Kyverno policies
 * run in order on a resource (`evaluateResource`), the tidy comparison, discovery, selector, JUnit.
 */
import { parseDocuments } from '../../policyset/index.js';
import { readInput } from '../documents.js';
import type { CliIO } from '../io.js';
import type { Counts, Row } from './check.js';
import { readKyvernoTest } from './format.js';
import { formatRows, type JunitSuite } from './output.js';
import { runKyvernoTest } from './run-test.js';
import { selectResults, type Selector } from './selector.js';

export { isKyvernoTestDocument, readKyvernoTest, type KyvernoTest, type TestResult } from './format.js';
export { findTests, type FoundTests } from './discover.js';
export { formatJunit, formatSummary, formatTable, type JunitSuite, type TableRow } from './output.js';
export { DATA_FORMATS, formatData, type DataFormat } from './report-formats.js';
export { parseSelector, selectResults, type Selector } from './selector.js';
export { compareTidy, tidy } from './tidy.js';
export { evaluateResource, type EvaluateOptions, type PolicyResponse, type RequestInfo } from './evaluate.js';
export { readUserInfo } from './run-test.js';
export { isClusterScoped, loadResources, normalizeResource, type LoadedResource } from './resources.js';
export { EMPTY_VALUES, parseSetPairs, readValuesDocument, ruleValuesFor, valuesFor, ValuesFormatError, type ValuesSpec } from './values.js';
export type { Counts, Row } from './check.js';

export interface KyvernoRunOptions {
  selector: Selector;
  detailed: boolean;
  failOnly: boolean;
  /** Where the human-readable report goes. */
  out: (text: string) => void;
  /** Whether a file was found in a folder (read only when a regular file) rather than named. */
  found?: (file: string) => boolean;
}

function errorRow(file: string, message: string, id: number): Row {
  return { id, policy: '-', rule: '-', resource: file, result: 'Fail', reason: 'Test error', message, isFailure: true };
}

export async function runKyvernoTestFiles(files: readonly string[], io: CliIO, options: KyvernoRunOptions): Promise<{ counts: Counts; suites: JunitSuite[] }> {
  const counts: Counts = { pass: 0, skip: 0, fail: 0 };
  const suites: JunitSuite[] = [];
  for (const file of files) {
    let id = 0;
    const nextId = () => ++id;
    let rows: Row[] = [];
    try {
      const parsed = parseDocuments(file, await readInput(file, io, { found: options.found?.(file) ?? false }));
      if (parsed.problems.length > 0) throw new Error(parsed.problems[0].message);
      // A file cut to nothing must not pass a CI gate as "0 tests", as an empty amender-test.yaml does not.
      if (parsed.documents.length === 0) throw new Error('the file holds no test');
      for (const doc of parsed.documents) {
        const test = readKyvernoTest(doc.value);
        // A test none of whose results the selector keeps (or with none) is passed over silently, as
        // kyverno test does before it loads anything (commands/test/command.go: no filteredResults).
        if (selectResults(options.selector, test.results).length === 0) continue;
        options.out(`Loading test ${test.name} ( ${file} ) ...\n`);
        const run = await runKyvernoTest(test, file, io, options.selector, counts, nextId);
        for (const line of run.log) options.out(`${line}\n`);
        rows = rows.concat(run.rows);
      }
    } catch (err) {
      // A test that cannot be read or run fails as one row, and the other files still run.
      counts.fail++;
      rows.push(errorRow(file, (err as Error).message, nextId()));
      options.out(`  Error: ${file}: ${(err as Error).message}\n`);
    }
    suites.push({ file, rows });
    if (!options.failOnly && rows.length > 0) options.out(`  Checking results ...\n\n${formatRows(rows, options.detailed)}\n`);
  }
  return { counts, suites };
}

/**
 * With --fail-only, what follows the summary line: kyverno test prints the failed rows of every test there,
 * numbered anew, after "Test Summary" and a blank line (commands/test/command.go, printFailedTestResult).
 */
export function formatFailedRows(suites: readonly JunitSuite[], detailed: boolean): string {
  const failed = suites.flatMap((s) => s.rows).filter((r) => r.isFailure).map((r, i) => ({ ...r, id: i + 1 }));
  return failed.length > 0 ? `\nAggregated Failed Test Cases : \n${formatRows(failed, detailed)}` : '';
}
