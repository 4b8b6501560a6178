/**
 * `amender test -o json|yaml` writes each row's keys in the order `kyverno test` prints them. Kyverno builds
 * each row as a Go map (commands/test/output.go printOutputFormats) and marshals it with encoding/json or
 * yaml.v3, which both sort a map's keys: ID, Message, POLICY, REASON, RESOURCE, RESULT, RULE (byte order, so
 * Message, the --detailed-results key, comes right after ID). FILE, Amender's own key, sorts first.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy, TEAM_TEST, WEB_POD } from './team-policy.js';


async function stdout(...args: string[]): Promise<string> {
  const io = fakeIO({ 't/policy.yaml': addTeamPolicy(['Pod']), 't/pods.yaml': WEB_POD, 't/kyverno-test.yaml': TEAM_TEST });
  expect(await runCli(['test', 't', ...args], io)).toBe(0);
  return io.stdout;
}

describe('amender test data formats: key order as kyverno test prints it', () => {
  it('json', async () => {
    expect(Object.keys(JSON.parse(await stdout('-o', 'json'))[0])).toEqual(['FILE', 'ID', 'POLICY', 'REASON', 'RESOURCE', 'RESULT', 'RULE']);
  });

  it('json with --detailed-results: Message after ID', async () => {
    expect(Object.keys(JSON.parse(await stdout('-o', 'json', '--detailed-results'))[0])).toEqual([
      'FILE', 'ID', 'Message', 'POLICY', 'REASON', 'RESOURCE', 'RESULT', 'RULE',
    ]);
  });

  it('yaml', async () => {
    const keys = (await stdout('-o', 'yaml', '--detailed-results')).split('\n').map((l) => /^[- ] (\w+):/.exec(l)?.[1]).filter(Boolean);
    expect(keys).toEqual(['FILE', 'ID', 'Message', 'POLICY', 'REASON', 'RESOURCE', 'RESULT', 'RULE']);
  });
});
