/**
 * The result table of `kyverno test` and `kyverno apply -t` titles its first column with the row count when
 * it has more than 10 rows: "ID (11)". Kyverno's printer sets RowLengthTitle to `length > 10`
 * (cmd/cli/kubectl-kyverno/output/table/printer.go), and lensesio/tableprinter then writes the first header
 * as `ID (11) `, which the table writer trims. Amender always printed "ID".
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const pods = (n: number) =>
  Array.from({ length: n }, (_, i) => `apiVersion: v1\nkind: Pod\nmetadata: {name: p${i}}\nspec: {containers: [{name: c, image: nginx}]}\n`).join('---\n');
const TEST = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: teams}
policies: [policy.yaml]
resources: [pods.yaml]
results:
  - {policy: add-team, rule: team, kind: Pod, result: pass}
`;

function headerOf(text: string): string {
  return text.split('\n').find((l) => l.includes('POLICY'))!.split('│')[1].trim();
}

describe('the result table past 10 rows', () => {
  it('amender test: "ID (11)" for 11 rows, "ID" for 10', async () => {
    for (const [n, header] of [[11, 'ID (11)'], [10, 'ID']] as const) {
      const io = fakeIO({ 't/policy.yaml': addTeamPolicy(['Pod']), 't/pods.yaml': pods(n), 't/kyverno-test.yaml': TEST });
      expect(await runCli(['test', 't'], io)).toBe(0);
      expect(headerOf(io.stdout)).toBe(header);
    }
  });

  it('amender apply -t', async () => {
    for (const [n, header] of [[12, 'ID (12)'], [3, 'ID']] as const) {
      const io = fakeIO({ 'p.yaml': addTeamPolicy(['Pod']), 'pods.yaml': pods(n) });
      expect(await runCli(['apply', 'p.yaml', '-r', 'pods.yaml', '-t'], io)).toBe(0);
      expect(headerOf(io.stderr)).toBe(header);
    }
  });
});
