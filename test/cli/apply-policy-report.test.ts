/**
 * `amender apply -p/--policy-report [--output-format yaml|json]`, kyverno apply's report of its results
 * (commands/apply/command.go printReports in place of the result lines; print.go: the merged ClusterReport,
 * then `---` and a PolicyReport per namespaced policy; report/report.go; pkg/utils/report/results.go
 * ToPolicyReportResult: source, policy key, rule, category/severity annotations, scored, process, the
 * resource). Before, -p was a wrong command line (exit 2).
 */
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy, labelMap } from './team-policy.js';

const TIER = `apiVersion: kyverno.io/v1
kind: Policy
metadata:
  name: tier
  namespace: default
  annotations: {policies.kyverno.io/category: Best Practices, policies.kyverno.io/severity: medium, policies.kyverno.io/scored: "false"}
spec:
  background: false
  failurePolicy: Ignore
  rules:
    - name: tier
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate: {patchStrategicMerge: {metadata: {labels: {tier: web}}}}
    - name: only-services
      match: {any: [{resources: {kinds: [Pod]}}]}
      preconditions: {all: [{key: "{{ request.object.kind }}", operator: Equals, value: Service}]}
      mutate: {patchStrategicMerge: {metadata: {labels: {svc: x}}}}
`;
const LABEL_MAP = labelMap('label-binding');
const POD = `apiVersion: v1
kind: Pod
metadata: {name: web, uid: u-1}
spec: {containers: [{name: c, image: nginx}]}
`;

async function apply(files: Record<string, string>, ...args: string[]) {
  const io = fakeIO({ ...files, 'pod.yaml': POD });
  const code = await runCli(['apply', ...args, '-r', 'pod.yaml'], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const POD_REF = { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default', uid: 'u-1' };

describe('amender apply -p (kyverno apply --policy-report)', () => {
  it('prints the resource, then the merged ClusterReport and a PolicyReport per namespaced policy', async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await apply({ 'team.yaml': addTeamPolicy(['Pod']), 'tier.yaml': TIER }, 'team.yaml', 'tier.yaml', '-p');
    expect(r.code).toBe(0);
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJS());
    expect(docs.map((d) => d.kind)).toEqual(['Pod', 'ClusterReport', 'PolicyReport']);
    expect(docs[0].metadata.labels).toEqual({ team: 'blue', tier: 'web' });
    const [, cluster, namespaced] = docs;
    expect(cluster.results[0].timestamp.seconds).toBeGreaterThanOrEqual(before);
    for (const d of [cluster, namespaced]) for (const x of d.results) delete x.timestamp;
    expect(cluster).toEqual({
      apiVersion: 'openreports.io/v1alpha1',
      kind: 'ClusterReport',
      metadata: { creationTimestamp: null, name: 'merged' },
      source: '',
      summary: { error: 0, fail: 0, pass: 1, skip: 0, warn: 0 },
      results: [
        {
          message: 'mutated Pod/web in namespace default',
          policy: 'add-team',
          properties: { process: 'background scan' },
          resources: [POD_REF],
          result: 'pass',
          rule: 'team',
          scored: true,
          source: 'kyverno',
        },
      ],
    });
    expect(namespaced.metadata).toEqual({ creationTimestamp: null, name: 'tier', namespace: 'default' });
    expect(namespaced.summary).toEqual({ error: 0, fail: 0, pass: 1, skip: 1, warn: 0 });
    expect(namespaced.results.map((x: Record<string, unknown>) => [x.policy, x.rule, x.result, x.category, x.severity, x.scored, x.properties])).toEqual([
      ['default/tier', 'tier', 'pass', 'Best Practices', 'medium', undefined, { process: 'admission review' }],
      ['default/tier', 'only-services', 'skip', 'Best Practices', 'medium', undefined, { process: 'admission review' }],
    ]);
    // In place of the result lines, as kyverno apply -p.
    expect(r.stderr).not.toContain('pass: ');
  });

  it('a MutatingAdmissionPolicy is named by its rule, with its binding; --output-format json writes one line each', async () => {
    const r = await apply({ 'm.yaml': LABEL_MAP }, '--policies', 'm.yaml', '--policy-report', '--output-format', 'json');
    expect(r.code).toBe(0);
    const [pod, report] = r.stdout.split('\n---\n');
    expect(pod).toContain('x: "y"');
    expect(report.endsWith('}\n') && report.trim().split('\n').length).toBe(1);
    const parsed = JSON.parse(report);
    expect(Object.keys(parsed)).toEqual(['apiVersion', 'kind', 'metadata', 'source', 'summary', 'results']);
    expect(parsed.results[0]).toMatchObject({
      source: 'MutatingAdmissionPolicy',
      policy: 'label',
      rule: 'label',
      result: 'pass',
      message: 'mutation is successfully applied',
      properties: { mapBinding: 'label-binding', process: 'background scan' },
    });
  });

  it('with --output the stdout holds the reports alone; an error result is in the report and exits 1', async () => {
    const broken = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: broken}
spec:
  failurePolicy: Ignore
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Pod]}}]}
      mutate: {patchesJson6902: '[{"op": "replace", "path": "/spec/none", "value": 1}]'}
`;
    const io = fakeIO({ 'p.yaml': broken, 'pod.yaml': POD });
    const written: string[] = [];
    io.makeDir = async () => {};
    io.writeFile = async (path) => void written.push(path);
    const code = await runCli(['apply', 'p.yaml', '-r', 'pod.yaml', '-p', '-o', 'out.yaml'], io);
    expect(written).toEqual(['out.yaml']);
    expect(code).toBe(1);
    const docs = parseAllDocuments(io.stdout).map((d) => d.toJS());
    expect(docs.map((d) => d.kind)).toEqual(['ClusterReport']);
    expect(docs[0].summary.error).toBe(1);
    expect(docs[0].results[0].result).toBe('error');
  });

  it('refuses what it cannot print: a format other than yaml or json, and --patch with it', async () => {
    const team = { 'team.yaml': addTeamPolicy(['Pod']) };
    const bad = await apply(team, 'team.yaml', '-p', '--output-format', 'xml');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--output-format xml: yaml or json');
    expect((await apply(team, 'team.yaml', '-p', '--patch')).code).toBe(2);
  });
});
