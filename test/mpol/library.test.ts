/**
 * Kyverno's policy library, MutatingPolicy versions (the `*-mpol` folders): every copied
 * `kyverno-test.yaml` runs unchanged through `amender test` (the CLI's public entry, real files) and every
 * result passes, except the folders EXCLUDED.md lists; the policies that need a cluster are refused by
 * `amender validate`, naming the call and the field.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { capturedCliIO, excludedFolders, libraryFolders } from '../fixtures/kyverno-library.js';
import { ROOT } from '../node/built.js';

const LIBRARY = 'test/kyverno-library-mpol';

const hasTest = (f: string) => existsSync(`${ROOT}${LIBRARY}/${f}/.kyverno-test/kyverno-test.yaml`);

describe('Kyverno policy library MutatingPolicy tests through amender test', () => {
  const skip = excludedFolders(LIBRARY);
  const folders = libraryFolders(LIBRARY).filter((f) => hasTest(f) && !skip.has(f));

  it('has the copied tests and excludes only folders that exist', () => {
    expect(folders.length).toBeGreaterThanOrEqual(35);
    for (const f of skip) expect(libraryFolders(LIBRARY)).toContain(f);
  });

  it('passes every result of every test', async () => {
    const c = capturedCliIO();
    const code = await runCli(['test', ...folders.map((f) => `${LIBRARY}/${f}`)], c.io);
    const out = c.out();
    for (const f of folders) expect(out).toContain(`( ${LIBRARY}/${f}/.kyverno-test/kyverno-test.yaml )`);
    expect(out).not.toMatch(/│ Fail /);
    expect(out).not.toMatch(/Error:|ERROR|Not run/);
    const summary = /Test Summary: (\d+) tests passed and (\d+) tests failed/.exec(out);
    expect(summary).not.toBeNull();
    expect(Number(summary![2])).toBe(0);
    expect(Number(summary![1])).toBeGreaterThanOrEqual(70);
    expect(code).toBe(0);
  });

  it('refuses the library policies that need a cluster, naming the call and the field', async () => {
    const c = capturedCliIO();
    const code = await runCli(['validate', `${LIBRARY}/karpenter/add-karpenter-nodeselector`, `${LIBRARY}/other/annotate-base-images`, `${LIBRARY}/other/resolve-image-to-digest`], c.io);
    expect(code).toBe(1);
    const err = c.err();
    expect(err).toContain('MutatingPolicy/add-karpenter-nodeselector: spec.variables[0].expression: Forbidden: resource.Get() reads objects from the Kubernetes API');
    expect(err).toContain('MutatingPolicy/annotate-base-images: spec.variables[0].expression: Forbidden: image.GetMetadata() fetches image metadata from a container registry');
    expect(err).toContain('MutatingPolicy/resolve-image-to-digest: spec.variables[4].expression: Forbidden: image.GetMetadata()');
    expect(err).toContain('3 files refused');
  });

  it('reports the mutate-existing policies of the library instead of passing them silently', async () => {
    const c = capturedCliIO();
    const code = await runCli(['validate', `${LIBRARY}/other/label-existing-namespaces`], c.io);
    expect(code).toBe(1);
    expect(c.err()).toContain('MutatingPolicy/label-existing-namespaces: spec.evaluation.mutateExisting.enabled: mutating existing resources is background work');
  });
});
