import { RE2JS } from 're2js';
import { CelEnvironment } from '../../src/cel/index.js';
import { compileRe2, parseQuantity } from '../../src/cel/lib/index.js';
import { formatNs, measure, table } from '../lib.js';

/**
 * The CEL function libraries (src/cel/lib): the regex engine choice (re2js against the built-in
 * RegExp, and what compileRe2 picks), Quantity parsing and comparison, and a few library calls
 * evaluated on the Kubernetes CEL engine.
 */
export async function run(): Promise<void> {
  regexEngines();
  regexWorstCases();
  quantities();
  libraryCalls();
}

const TYPICAL: [string, string, string][] = [
  ['DNS label', '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', 'my-deployment-name-123'],
  ['registry prefix', '^registry\\.example\\.com/', 'registry.example.com/team/app:v1.2.3'],
  ['digits', '[0-9]+', 'this is a 123 string 456'],
  ['(?i) image', '(?i)^NGINX:', 'nginx:1.25'],
  ['latest tag', '^.*:latest$', 'docker.io/library/nginx:latest'],
  ['subdomain (RE2 only)', '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$', 'api.example.com'],
];

function regexEngines(): void {
  const rows = TYPICAL.map(([name, pattern, input]) => {
    const re2 = RE2JS.compile(pattern);
    const js = pattern.startsWith('(?i)') ? new RegExp(pattern.slice(4), 'iu') : new RegExp(pattern, 'u');
    const chosen = compileRe2(pattern);
    return {
      pattern: name,
      'RegExp test': formatNs(measure(() => js.test(input), { minMillis: 150 }).median),
      're2js test': formatNs(measure(() => re2.test(input), { minMillis: 150 }).median),
      'compileRe2 test': formatNs(measure(() => chosen.test(input), { minMillis: 150 }).median),
      engine: chosen.usesFastPath(input) ? 'RegExp' : 're2js',
      're2js compile': formatNs(measure(() => RE2JS.compile(pattern), { minMillis: 150 }).median),
    };
  });
  table('regex: one search on a typical admission string (median)', rows);
}

function regexWorstCases(): void {
  const rows: Record<string, string>[] = [];
  for (const n of [1_000, 10_000, 100_000]) {
    const input = 'a'.repeat(n);
    const re2 = RE2JS.compile('a*b');
    const chosen = compileRe2('a*b');
    const row: Record<string, string> = {
      'a*b on a^n': `n=${n}`,
      're2js': formatNs(measure(() => re2.test(input), { minMillis: 150 }).median),
      compileRe2: formatNs(measure(() => chosen.test(input), { minMillis: 150 }).median),
    };
    // The backtracking engine is quadratic here; only the small size is measured.
    row.RegExp = n <= 1_000 ? formatNs(measure(() => /a*b/u.test(input), { minMillis: 150 }).median) : '(quadratic: skipped)';
    rows.push(row);
  }
  const evil = 'a'.repeat(100_000) + '!';
  const chosen = compileRe2('(a+)+$');
  rows.push({
    'a*b on a^n': '(a+)+$ on a^100000!',
    're2js': formatNs(measure(() => RE2JS.compile('(a+)+$').test(evil), { minMillis: 150 }).median),
    compileRe2: formatNs(measure(() => chosen.test(evil), { minMillis: 150 }).median),
    RegExp: '(exponential: never finishes)',
  });
  table('regex: adversarial inputs (median per search)', rows);
}

function quantities(): void {
  const inputs = ['500m', '1.5Gi', '200M', '9999999999999999999999999999999999999G', '12e6'];
  const rows = inputs.map((s) => ({
    quantity: s,
    parse: formatNs(measure(() => parseQuantity(s), { minMillis: 150 }).median),
  }));
  table('Quantity: parse (median)', rows);
  const a = parseQuantity('1536Mi');
  const b = parseQuantity('1.5Gi');
  const c = parseQuantity('2G');
  table('Quantity: arithmetic and comparison (median)', [
    { operation: 'cmp int64 forms (1536Mi vs 2G)', time: formatNs(measure(() => a.cmp(c), { minMillis: 150 }).median) },
    { operation: 'cmp decimal vs int64 (1.5Gi vs 1536Mi)', time: formatNs(measure(() => b.cmp(a), { minMillis: 150 }).median) },
    { operation: 'add int64 forms', time: formatNs(measure(() => a.add(c), { minMillis: 150 }).median) },
  ]);
}

function libraryCalls(): void {
  const env = new CelEnvironment({ variables: { s: 'string' }, homogeneousAggregateLiterals: true });
  const calls: [string, string][] = [
    ['quantity(s).isLessThan(quantity("1Gi"))', '512Mi'],
    ['ip(s).isLoopback()', '127.0.0.1'],
    ['cidr("10.0.0.0/8").containsIP(s)', '10.1.2.3'],
    ['s.matches("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")', 'my-deployment-name-123'],
    ['s.find("[0-9]+")', 'app-v123'],
    ['"%s-%s".format([s, "v1"])', 'web'],
    ['url(s).getHostname()', 'https://registry.example.com:5000/v2/'],
    ['format.dns1123Label().validate(s).hasValue()', 'my-name'],
    ['semver(s).isGreaterThan(semver("1.28.0"))', '1.30.2'],
    ['s.split("/").last().orValue("")', 'registry.example.com/team/app'],
  ];
  const rows = calls.map(([expr, s]) => {
    const compiled = env.compile(expr, { check: true });
    if (!compiled.ok) return { expression: expr, evaluate: `compile error: ${compiled.message}` };
    const program = compiled.program;
    const bindings = { s };
    return { expression: expr, evaluate: formatNs(measure(() => program.evaluate(bindings), { minMillis: 150 }).median) };
  });
  table('library calls on the Kubernetes CEL engine: evaluate (median, compiled once)', rows);
}
