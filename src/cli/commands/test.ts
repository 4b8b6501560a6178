import { flag, parseArgs, stringOption, UsageError } from '../args.js';
import { readInput } from '../documents.js';
import { CliInputError, describeFsError } from '../errors.js';
import { runGoldenFiles } from '../golden-run.js';
import type { CliCommand, CliIO } from '../io.js';
import { DATA_FORMATS, findTests, formatData, formatFailedRows, formatJunit, formatSummary, isKyvernoTestDocument, parseSelector, runKyvernoTestFiles, type DataFormat } from '../kyverno-test/index.js';
import { parseDocuments } from '../../policyset/index.js';
import { fromKyverno, refuseRemote, TEST_FLAGS } from '../kyverno-flags.js';

export const TEST_USAGE = `usage: amender test PATH... [--detailed-results] [--fail-only] [--test-case-selector "policy=…,rule=…,resource=…"]
                         [-o junit|json|yaml|markdown [--output-file FILE]] [--file-name kyverno-test.yaml]
                         [--require-tests]
  Runs the tests under PATH (a folder, walked recursively, or a test file):
  - amender-test.yaml: Amender's golden tests; each case's result must equal the expectation exactly.
  - kyverno-test.yaml (also in .kyverno-test/ folders): Kyverno CLI tests, run as \`kyverno test\` runs
    them (policies in file order, patched resources compared after tidying, per-rule pass/skip/fail),
    with Amender's engine. Prints the same table and "Test Summary" line, and a diff for each failure.
  --detailed-results      add the MESSAGE column
  --fail-only             print only the failed rows
  --test-case-selector    wildcards on policy, rule and resource (-t)
  -o junit                JUnit XML for CI on stdout (the report then goes to stderr), or in --output-file
  -o json|yaml|markdown   the result rows of all the files as one document (Kyverno's columns and FILE),
                          on stdout (the report then goes to stderr), or in --output-file
  --require-tests         accepted as in kyverno test: finding no test is always a failure here
  --remove-color          accepted as in kyverno test: the output has no colours
  kyverno test's spellings are taken: -o and --output-format, -t, -f (as --file-name); -b/--git-branch
  (a remote repository) is refused with the reason.
  Exit 1 on any failure or unreadable test.
`;

async function isKyvernoFile(path: string, io: CliIO): Promise<boolean> {
  const parsed = parseDocuments(path, await readInput(path, io));
  const first = parsed.documents[0]?.value;
  return first !== undefined && isKyvernoTestDocument(first);
}

const isDataFormat = (f: string): f is DataFormat => (DATA_FORMATS as readonly string[]).includes(f);

/** `amender test`: golden tests and Kyverno CLI tests. */
export const testCommand: CliCommand = async (argv, io) => {
  const args = parseArgs(
    // Kyverno's one-letter flags (-o, -t, -f; -ojson, -t=…) as this CLI's options; its flags given twice
    // count the last time ('last'), as in kyverno test.
    fromKyverno(argv, TEST_FLAGS),
    {
      'detailed-results': 'boolean',
      'fail-only': 'boolean',
      'remove-color': 'boolean',
      'test-case-selector': 'last',
      'output-format': 'last',
      'output-file': 'string',
      'file-name': 'last',
      'require-tests': 'boolean',
    },
  );
  if (args.positionals.length === 0) throw new UsageError('give at least one PATH (a folder, an amender-test.yaml or a kyverno-test.yaml)');
  refuseRemote(args.positionals, 'tests');
  const format = stringOption(args, 'output-format');
  if (format !== undefined && format !== 'junit' && !isDataFormat(format)) {
    throw new UsageError(`--output-format: expected one of junit, ${DATA_FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
  }
  const outputFile = stringOption(args, 'output-file');
  if (outputFile !== undefined && format === undefined) throw new UsageError('--output-file goes with -o junit, json, yaml or markdown');
  if (outputFile !== undefined && !io.writeFile) throw new CliInputError('cannot write files here');
  const selector = parseSelector(stringOption(args, 'test-case-selector') ?? '');
  const detailed = flag(args, 'detailed-results');
  const failOnly = flag(args, 'fail-only');

  const found = await findTests(args.positionals, io, stringOption(args, 'file-name') ?? 'kyverno-test.yaml');
  for (const loop of found.loops ?? []) io.err(`amender test: note: ${loop}: a link back to a folder it is in, not followed\n`);
  // Test files found in folders are read only when regular files (a FIFO would block the run).
  const given = new Set(found.given);
  const walked = (file: string) => !given.has(file);
  for (const file of found.given) {
    let kyverno: boolean;
    try {
      kyverno = await isKyvernoFile(file, io);
    } catch {
      kyverno = false; // unreadable: the golden runner reports it
    }
    (kyverno ? found.kyverno : found.golden).push(file);
  }
  if (found.golden.length === 0 && found.kyverno.length === 0) {
    io.err(`amender test: no amender-test.yaml or kyverno-test.yaml found under ${args.positionals.join(', ')}\n`);
    return 1;
  }
  // With a document on stdout, the report a person reads goes to stderr.
  const report = format !== undefined && outputFile === undefined ? io.err : io.out;
  let failed = 0;
  if (found.golden.length > 0) {
    const golden = await runGoldenFiles(found.golden, io, report, walked);
    report(`\n${golden.passed} passed, ${golden.failed} failed\n`);
    failed += golden.failed;
  }
  if (found.kyverno.length > 0) {
    const { counts, suites } = await runKyvernoTestFiles(found.kyverno, io, { selector, detailed, failOnly, out: report, found: walked });
    report(formatSummary(counts, failOnly));
    if (failOnly) report(formatFailedRows(suites, detailed));
    failed += counts.fail;
    if (format !== undefined) {
      const document = format === 'junit' ? formatJunit(suites, detailed) : formatData(format, suites, detailed, failOnly);
      if (outputFile !== undefined) {
        try {
          await io.writeFile!(outputFile, document);
        } catch (err) {
          throw new CliInputError(`cannot write ${describeFsError(outputFile, err)}`, { cause: err });
        }
      }
      else io.out(document);
    }
  }
  return failed === 0 ? 0 : 1;
};
