/** The pieces of `amender test`'s Kyverno support: tidy/compare, discovery, values, selector, JUnit. */
import { describe, expect, it } from 'vitest';
import {
  compareTidy,
  findTests,
  formatJunit,
  formatSummary,
  normalizeResource,
  parseSelector,
  parseSetPairs,
  readKyvernoTest,
  readValuesDocument,
  ruleValuesFor,
  selectResults,
  tidy,
  valuesFor,
  type Row,
} from '../../src/cli/kyverno-test/index.js';
import { fakeIO } from '../cli/fake-io.js';

describe('tidy and compare', () => {
  it('removes nulls, empty maps and empty lists, recursively', () => {
    expect(tidy({ a: null, b: {}, c: [], d: { e: [{}, null], f: 0, g: '', h: false }, i: [1, null, { j: {} }] })).toEqual({ d: { f: 0, g: '', h: false }, i: [1] });
    expect(tidy({ a: { b: { c: null } } })).toBeUndefined();
  });

  it('compares tidied documents: key order ignored, list order and value types significant', () => {
    expect(compareTidy({ a: 1, b: { c: [] } }, { b: {}, a: 1.0 })).toEqual([]);
    expect(compareTidy({ l: [1, 2] }, { l: [2, 1] })).toHaveLength(2);
    expect(compareTidy({ n: 1 }, { n: '1' })).toEqual([{ path: '/n', expected: 1, actual: '1' }]);
    expect(compareTidy({ a: 1 }, { a: 1, extra: { x: 'y' } })).toEqual([{ path: '/extra', actual: { x: 'y' } }]);
  });
});

describe('resources as the Kyverno CLI loads them', () => {
  it('gives namespaced kinds (and unknown kinds) the default namespace, not cluster-scoped ones', () => {
    expect(normalizeResource({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }, [])).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' } });
    expect(normalizeResource({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } }, [])).toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } });
    expect(normalizeResource({ apiVersion: 'x.io/v1', kind: 'Thing', metadata: { name: 't' } }, [])).toMatchObject({ metadata: { namespace: 'default' } });
    const crd = { kind: 'CustomResourceDefinition', spec: { group: 'x.io', scope: 'Cluster', names: { kind: 'Thing', plural: 'things' } } };
    expect(normalizeResource({ apiVersion: 'x.io/v1', kind: 'Thing', metadata: { name: 't' } }, [crd])).toEqual({ apiVersion: 'x.io/v1', kind: 'Thing', metadata: { name: 't' } });
    expect(normalizeResource({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'x', labels: null } }, [])).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'x', labels: {} } });
  });
});

describe('discovery', () => {
  it('finds kyverno-test.yaml anywhere (hidden folders too), amender-test.yaml outside hidden folders, never in .git', async () => {
    const io = fakeIO({
      'r/a/.kyverno-test/kyverno-test.yaml': 'x',
      'r/b/kyverno-test.yaml': 'x',
      'r/b/amender-test.yaml': 'x',
      'r/.hidden/amender-test.yaml': 'x',
      'r/.git/kyverno-test.yaml': 'x',
      'r/node_modules/p/kyverno-test.yaml': 'x',
      'r/c/other-test.yaml': 'x',
      'single.yaml': 'x',
    });
    expect(await findTests(['r', 'single.yaml'], io)).toEqual({
      golden: ['r/b/amender-test.yaml'],
      kyverno: ['r/a/.kyverno-test/kyverno-test.yaml', 'r/b/kyverno-test.yaml'],
      given: ['single.yaml'],
    });
    expect((await findTests(['r'], io, 'other-test.yaml')).kyverno).toEqual(['r/c/other-test.yaml']);
  });
});

describe('values', () => {
  const spec = readValuesDocument({
    apiVersion: 'cli.kyverno.io/v1alpha1',
    kind: 'Values',
    globalValues: { a: 'global', b: 'global' },
    policies: [{ name: 'p', resources: [{ name: 'r', values: { b: 'resource' } }], rules: [{ name: 'rule', values: { 'cfg.data.x': '1' } }] }],
    namespaceSelector: [{ name: 'ns', labels: { from: 'selector' } }],
    namespaces: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', labels: { from: 'namespace' } } }],
  });

  it('layers global, per-resource and --set values; request.operation defaults to CREATE', () => {
    expect(valuesFor(spec, 'p', 'r')).toEqual({ a: 'global', b: 'resource', 'request.operation': 'CREATE' });
    expect(valuesFor(spec, 'p', 'other', { a: 'set', 'request.operation': 'UPDATE' })).toEqual({ a: 'set', b: 'global', 'request.operation': 'UPDATE' });
    expect(ruleValuesFor(spec, 'p', 'rule')).toEqual({ 'cfg.data.x': '1' });
    expect(ruleValuesFor(spec, 'p', 'none')).toBeUndefined();
  });

  it('gives namespaces precedence over namespaceSelector entries', () => {
    expect(spec.namespaceLabels.get('ns')).toEqual({ from: 'namespace' });
  });

  it('refuses what it cannot read', () => {
    expect(() => readValuesDocument({ apiVersion: 'cli.kyverno.io/v1alpha1', kind: 'Values', policies: [{ name: 'p', rules: [{ name: 'r', foreachValues: { x: [1] } }] }] })).toThrow(/foreachValues: not supported/);
    expect(() => readValuesDocument({ apiVersion: 'cli.kyverno.io/v1alpha1', kind: 'Values', typo: 1 })).toThrow(/unknown key "typo"/);
    expect(() => readValuesDocument({ apiVersion: 'v1', kind: 'Values' })).toThrow(/expected cli.kyverno.io\/v1alpha1/);
  });

  it('reads --set pairs as the Kyverno CLI does', () => {
    expect(parseSetPairs(['a=1', ' b = 2', 'a=3'])).toEqual({ a: '1', b: '2' });
    expect(() => parseSetPairs(['a='])).toThrow(/expected key=value/);
    expect(() => parseSetPairs(['request.object.metadata.name=x'])).toThrow(/cannot be set/);
  });
});

describe('test-case selector', () => {
  const results = readKyvernoTest({
    apiVersion: 'cli.kyverno.io/v1alpha1',
    kind: 'Test',
    results: [
      { policy: 'add-labels', rule: 'labels', resources: ['web', 'db'], result: 'pass' },
      { policy: 'add-annotations', rule: 'annotate', resources: ['web'], result: 'skip' },
      { policy: 'add-labels', rule: 'other', result: 'pass' },
    ],
  }).results;

  it('matches wildcards on policy, rule and resource; a result without the field passes', () => {
    // Go's wildcard.Match (src/go/wildcard.ts): `?` one character, `.` literal.
    expect(selectResults(parseSelector('policy=a?d-labels'), results).map((r) => r.rule)).toEqual(['labels', 'other']);
    expect(selectResults(parseSelector('policy=add.labels'), results)).toEqual([]);
    expect(selectResults(parseSelector('policy=add-l*'), results).map((r) => r.rule)).toEqual(['labels', 'other']);
    expect(selectResults(parseSelector('rule=annotate'), results).map((r) => r.policy)).toEqual(['add-annotations']);
  });

  it('narrows the checked resources to a resource value other than *', () => {
    expect(selectResults(parseSelector('resource=db'), results).map((r) => [r.rule, r.resources])).toEqual([
      ['labels', ['db']],
      ['other', ['db']],
    ]);
    expect(selectResults(parseSelector('policy=*,rule=*,resource=*'), results)).toEqual(results);
    expect(() => parseSelector('policy')).toThrow(/not key=value/);
  });
});

describe('report output', () => {
  const rows: Row[] = [
    { id: 1, policy: 'p<1>', rule: 'r', resource: 'v1/Pod/default/a', result: 'Pass', reason: 'Ok', message: 'mutated', isFailure: false },
    { id: 2, policy: 'p<1>', rule: 'r', resource: 'v1/Pod/default/b', result: 'Fail', reason: 'Want pass, got skip', message: 'a & "b"', isFailure: true },
  ];

  it('writes one testsuite per test file and policy, failures with their message, XML escaped', () => {
    expect(formatJunit([{ file: 't.yaml', rows }], false)).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="2" failures="1">\n' +
        ' <testsuite name="p&lt;1&gt;" file="t.yaml" tests="2" failures="1">\n' +
        '  <testcase classname="r" name="v1/Pod/default/a">\n' +
        '   <system-out>Policy: p&lt;1&gt;\nRule: r\nResource: v1/Pod/default/a\nResult: Pass\nReason: Ok</system-out>\n' +
        '  </testcase>\n' +
        '  <testcase classname="r" name="v1/Pod/default/b">\n' +
        '   <failure message="Want pass, got skip">Policy: p&lt;1&gt;\nRule: r\nResource: v1/Pod/default/b\nResult: Fail\nReason: Want pass, got skip\nMessage: a &amp; &quot;b&quot;</failure>\n' +
        '  </testcase>\n' +
        ' </testsuite>\n</testsuites>\n',
    );
  });

  it('sums skipped results as passed, as kyverno test does', () => {
    expect(formatSummary({ pass: 2, skip: 1, fail: 1 }, false)).toBe('\nTest Summary: 3 tests passed and 1 tests failed\n');
    expect(formatSummary({ pass: 2, skip: 1, fail: 1 }, true)).toBe('\nTest Summary: 1 out of 4 tests failed\n');
  });
});
