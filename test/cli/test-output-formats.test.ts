/**
 * `amender test` takes the `kyverno test` options users carry over to CI: `-o json|yaml|markdown`
 * (commands/test/command.go: valid formats json, yaml, markdown, junit; output.go printOutputFormats) and
 * `--require-tests`. The document goes to stdout, the report to stderr, as with `-o junit`.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const POLICY = addTeamPolicy(['Pod']);
const PODS = `apiVersion: v1
kind: Pod
metadata: {name: web}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: db}
spec: {containers: [{name: c, image: postgres}]}
`;
const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: teams}
policies: [policy.yaml]
resources: [pods.yaml]
results:
  - {policy: add-team, rule: team, kind: Pod, resources: [web], result: pass}
  - {policy: add-team, rule: team, kind: Pod, resources: [db], result: skip}
`;

async function run(...args: string[]) {
  const io = fakeIO({ 't/policy.yaml': POLICY, 't/pods.yaml': PODS, 't/kyverno-test.yaml': TEST });
  const code = await runCli(['test', 't', ...args], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

const WEB = { ID: 1, POLICY: 'add-team', RULE: 'team', RESOURCE: 'v1/Pod/default/web', RESULT: 'Pass', REASON: 'Ok', FILE: 't/kyverno-test.yaml' };
const DB = { ID: 2, POLICY: 'add-team', RULE: 'team', RESOURCE: 'v1/Pod/default/db', RESULT: 'Fail', REASON: 'Want skip, got pass', FILE: 't/kyverno-test.yaml' };

describe('amender test -o json|yaml|markdown', () => {
  it('json: every row as data on stdout, the report on stderr', async () => {
    const r = await run('-o', 'json');
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual([WEB, DB]);
    expect(r.stderr).toContain('Test Summary: 1 tests passed and 1 tests failed');
  });

  it('yaml with --detailed-results carries the message', async () => {
    const r = await run('--output-format', 'yaml', '--detailed-results');
    const rows = parse(r.stdout) as Record<string, unknown>[];
    expect(rows.map((x) => x.RESULT)).toEqual(['Pass', 'Fail']);
    expect(rows[0].Message).toContain('mutated Pod/web');
  });

  it('--fail-only keeps the failed rows', async () => {
    const r = await run('-o', 'json', '--fail-only');
    expect(JSON.parse(r.stdout)).toEqual([DB]);
  });

  it('markdown: a table per test file', async () => {
    const r = await run('-o', 'markdown');
    expect(r.stdout).toBe(
      't/kyverno-test.yaml\n\n| ID | POLICY | RULE | RESOURCE | RESULT | REASON |\n|----|----|----|----|----|----|\n' +
        '| 1 | add-team | team | v1/Pod/default/web | Pass | Ok |\n| 2 | add-team | team | v1/Pod/default/db | Fail | Want skip, got pass |\n',
    );
  });

  it('into --output-file', async () => {
    const io = fakeIO({ 't/policy.yaml': POLICY, 't/pods.yaml': PODS, 't/kyverno-test.yaml': TEST });
    const written: Record<string, string> = {};
    io.writeFile = async (path, text) => void (written[path] = text);
    expect(await runCli(['test', 't', '-o', 'json', '--output-file', 'out.json'], io)).toBe(1);
    expect(JSON.parse(written['out.json'])).toEqual([WEB, DB]);
    expect(io.stdout).toContain('Test Summary');
  });

  it('an unknown format is a wrong command line naming the formats', async () => {
    const r = await run('-o', 'html');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--output-format: expected one of junit, json, yaml, markdown, got "html"');
  });
});

describe('amender test --require-tests', () => {
  it('is accepted', async () => {
    const r = await run('--require-tests', '-t', 'resource=web');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('finding no test fails, with or without it', async () => {
    for (const extra of [[], ['--require-tests']]) {
      const io = fakeIO({ 'empty/readme.md': 'nothing' });
      expect(await runCli(['test', 'empty', ...extra], io)).toBe(1);
      expect(io.stderr).toContain('no amender-test.yaml or kyverno-test.yaml found under empty');
    }
  });
});
