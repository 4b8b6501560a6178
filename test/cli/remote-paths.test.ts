/**
 * kyverno apply downloads policies and resources given as http(s) URLs and clones git repositories, and
 * kyverno test clones a repository of tests (source/http.go IsHttp, git.go IsGit; policy/load.go,
 * resource/resource.go, commands/test/load.go). Amender reads local paths: such a path is refused saying
 * so, where before it was "unknown scheme (use bundled, file://DIR, …)" or "no such file or folder".
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from './fake-io.js';
import { addTeamPolicy } from './team-policy.js';

const POD = `apiVersion: v1
kind: Pod
metadata: {name: web}
`;

async function run(...args: string[]) {
  const io = fakeIO({ 'team.yaml': addTeamPolicy(['Pod']), 'pod.yaml': POD });
  const code = await runCli(args, io);
  return { code, stderr: io.stderr };
}

describe('URLs where kyverno downloads', () => {
  it('a policy URL (as an argument or --policies)', async () => {
    for (const args of [['https://raw.githubusercontent.com/o/r/main/p.yaml'], ['--policies', 'team.yaml', 'http://example.com/p.yaml']]) {
      const r = await run('apply', ...args, '-r', 'pod.yaml');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/: kyverno fetches policies from URLs and git repositories; Amender reads local files and folders: download or clone it and give its path\n/);
    }
  });

  it('a resource URL', async () => {
    const r = await run('apply', 'team.yaml', '-r', 'pod.yaml,https://example.com/pod.yaml');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('https://example.com/pod.yaml: kyverno fetches resources from URLs and git repositories; Amender reads local files and folders: download it and give its path');
  });

  it('a repository of tests', async () => {
    const r = await run('test', 'https://github.com/kyverno/policies/main');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('https://github.com/kyverno/policies/main: kyverno fetches tests from URLs and git repositories');
  });
});
