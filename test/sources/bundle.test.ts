/** The bundled set: validated at build time, refused with the policy's message, served pre-parsed. */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { isFloatLiteral, type JsonObject } from '../../src/json/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { bundledSource, bundlePolicies, formatBundleProblems, PolicySetRefresher, stringifyJson, type PolicyBundle } from '../../src/sources/index.js';
import { bundlePolicyFolder, main } from '../../src/sources/node/bundle-folder.js';
import { loadPolicies } from '../../src/cli/load.js';
import { nodeCliIO } from '../../src/cli/node-io.js';
import { labelPolicy } from './helpers.js';
import { pod, podRequest } from '../kyverno/helpers/requests.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'amender-bundle-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function serve(bundle: PolicyBundle): Promise<PolicySetRefresher> {
  const r = new PolicySetRefresher({ name: 'default', sources: [bundledSource(bundle)], intervalMs: 0 });
  expect((await r.refresh()).outcome).toBe('applied');
  return r;
}

describe('bundled policies', () => {
  it('bundles the repository policies/ and serves the same set as reading the YAML', async () => {
    const result = await bundlePolicyFolder(join(ROOT, 'policies'));
    if (!result.ok) throw new Error(formatBundleProblems(result.problems));
    expect(result.bundle.files.map((f) => f.name).sort()).toEqual(['container-defaults.yaml', 'default-labels.yaml', 'image-pull-policy.yaml', 'sidecar.yaml']);
    const fromBundle = (await serve(result.bundle)).provider().set!;
    const fromYaml = (await loadPolicies([join(ROOT, 'policies')], nodeCliIO())).set;
    expect(fromBundle.counts).toEqual(fromYaml.counts);
    expect(fromBundle.problems).toEqual([]);
    expect(fromBundle.mutatingPolicies.map((p) => p.policy)).toEqual(fromYaml.mutatingPolicies.map((p) => p.policy));
  });

  it('keeps what YAML said of numbers: 1.0 stays a double, 1 an int', async () => {
    const text = 'apiVersion: example.com/v1\nkind: Limits\nmetadata: {name: limits, namespace: default}\nspec:\n  ratio: 1.0\n  count: 1\n  list: [2.0, 2]\n';
    const result = await bundlePolicies([{ name: 'params.yaml', text }]);
    if (!result.ok) throw new Error(formatBundleProblems(result.problems));
    const fetched = await bundledSource(result.bundle).fetch({ name: 'params.yaml', label: 'bundled:params.yaml' }, { signal: new AbortController().signal, maxBytes: 1 << 20 });
    if (fetched.status !== 'parsed') throw new Error(`expected parsed documents, got ${fetched.status}`);
    const spec = fetched.parsed.documents[0].value.spec as JsonObject;
    expect(isFloatLiteral(spec, 'ratio')).toBe(true);
    expect(isFloatLiteral(spec, 'count')).toBe(false);
    expect(isFloatLiteral(spec.list as object, 0)).toBe(true);
    expect(isFloatLiteral(spec.list as object, 1)).toBe(false);
    expect(stringifyJson(fetched.parsed.documents[0].value)).toContain('"ratio":1.0,"count":1,"list":[2.0,2]');
    expect(fetched.parsed.documents[0].value).toEqual(parseDocuments('x', text).documents[0].value);
  });

  it('ships the parsed Kyverno patch templates, which the bundled source uses instead of parsing the patch text', async () => {
    const patch = '- op: add\n  path: /metadata/labels/owner\n  value: "{{ request.userInfo.username }}"\n';
    const policy = [
      'apiVersion: kyverno.io/v1',
      'kind: ClusterPolicy',
      'metadata: {name: owner-label}',
      'spec:',
      '  background: false',
      '  rules:',
      '  - name: owner',
      '    match: {any: [{resources: {kinds: [Pod]}}]}',
      '    mutate:',
      `      patchesJson6902: ${JSON.stringify(patch)}`,
      '',
    ].join('\n');
    const result = await bundlePolicies([{ name: 'owner.yaml', text: policy }]);
    if (!result.ok) throw new Error(formatBundleProblems(result.problems));
    const entries = JSON.parse(result.bundle.patchTemplates!) as [string, { base: { path: string }[]; slots: unknown[] } | null][];
    const [, template] = entries.find(([text]) => text === patch)!;
    expect(template!.slots).toHaveLength(1);
    const request = podRequest(pod('p', ['c']));
    const labels = async (bundle: PolicyBundle) => {
      const r = await evaluate((await serve(bundle)).provider().set!, request);
      return r.allowed ? ((r.object as JsonObject).metadata as JsonObject).labels : r;
    };
    expect(await labels(result.bundle)).toEqual({ owner: 'alice' });
    // A bundle whose template says otherwise than its text shows that the text is not parsed again.
    template!.base[0].path = '/metadata/labels/from-bundle';
    expect(await labels({ ...result.bundle, patchTemplates: JSON.stringify(entries) })).toEqual({ 'from-bundle': 'alice' });
    expect(() => bundledSource({ ...result.bundle, patchTemplates: '[["x"]]' })).toThrow(/patch templates are not a list of \[text, template\] entries/);
  });

  it('refuses an invalid policy with its document, field and message', async () => {
    const invalid = labelPolicy('no-reinvocation', 'team', 'x').replace('  reinvocationPolicy: Never\n', '');
    const result = await bundlePolicies([
      { name: 'good.yaml', text: labelPolicy('good', 'team', 'x') },
      { name: 'bad.yaml', text: invalid },
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(formatBundleProblems(result.problems)).toBe('bundled:bad.yaml#0 MutatingAdmissionPolicy/no-reinvocation: spec.reinvocationPolicy: Required value');
  });

  it('refuses a policy whose expression does not compile', async () => {
    const text = labelPolicy('typo', 'team', 'x', '[JSONPatch{op: "add", path: "/metadata/labels/x", value: object.metadata.name +}]');
    expect(buildPolicySet(parseDocuments('x', text)).problems.every((p) => p.effect === 'ignored')).toBe(true);
    const result = await bundlePolicies([{ name: 'typo.yaml', text }]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems[0]).toMatchObject({ source: 'bundled:typo.yaml', name: 'typo', path: 'spec.mutations[0].jsonPatch.expression' });
  });

  it('the build step (the command the build script runs) exits non-zero with the message, or writes the bundle', async () => {
    const script = join(ROOT, 'src/sources/node/bundle-folder.ts');
    const out = join(dir, 'out', 'bundle.json');
    await writeFile(join(dir, 'bad.yaml'), labelPolicy('no-reinvocation', 'team', 'x').replace('  reinvocationPolicy: Never\n', ''));
    const failed = await run(process.execPath, ['--import', 'tsx', script, dir, out], { cwd: ROOT }).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toBe(`invalid bundled policies in ${dir}:\nbundled:bad.yaml#0 MutatingAdmissionPolicy/no-reinvocation: spec.reinvocationPolicy: Required value\n`);

    await writeFile(join(dir, 'bad.yaml'), labelPolicy('fixed', 'team', 'x'));
    const errors: string[] = [];
    expect(await main([dir, out], (t) => errors.push(t))).toBe(0); // the same step, in this process
    expect(errors).toEqual([]);
    const bundle = JSON.parse(await readFile(out, 'utf8')) as PolicyBundle;
    expect((await serve(bundle)).provider().set!.mutatingPolicies.map((p) => p.policy.name)).toEqual(['fixed']);
  });

  it('refuses something that is not a bundle', () => {
    expect(() => bundledSource({ files: [] } as unknown as PolicyBundle)).toThrow(/not a policy bundle of format amender\.policy-bundle\/v1/);
  });
});
