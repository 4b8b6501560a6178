import { describe, expect, it } from 'vitest';
import { CelEnvironment, compileExpression } from '../../../src/cel/index.js';
import { buildEnvs } from '../../../src/cel/k8s/environment.js';
import { libraries, MUTATION_ONLY_LIBRARIES } from '../../../src/cel/lib/index.js';

describe('library index', () => {
  it('lists every library once, each registering into a fresh environment', () => {
    const names = libraries.map((l) => l.name);
    expect(new Set(names).size).toBe(names.length);
    for (let i = 0; i < 2; i++) {
      const env = new CelEnvironment({ libraries });
      expect(env.libraryErrors).toEqual([]);
      const c = env.compile('jsonpatch.escapeKey("a/b") + strings.quote("x")');
      expect(c.ok && c.program.evaluate().ok && c.program.evaluate()).toMatchObject({ value: 'a~1b"x"' });
    }
  });

  it('declares every signature with known types (signatures are parsed on first use, so all are forced here)', () => {
    const envs = buildEnvs(libraries);
    expect(envs.libraryErrors).toEqual([]);
    expect(() => envs.mutations.materializeAll()).not.toThrow();
    const broken = { name: 'test.badtype', register: (r: { registerFunction(s: string, f: () => unknown): void }) => r.registerFunction('f(nosuchtype): int', () => 1n) };
    expect(() => buildEnvs([broken]).conditions.materializeAll()).toThrow("unknown type 'nosuchtype'");
  });

  it('names the mutation-only libraries', () => {
    expect([...MUTATION_ONLY_LIBRARIES]).toEqual(['kubernetes.jsonpatch']);
  });

  it('leaves jsonpatch out of the matchCondition environment, as kube-apiserver does', () => {
    const condition = compileExpression('jsonpatch.escapeKey("a/b") == "a~1b"', 'matchCondition', { params: false });
    expect(condition.ok).toBe(false);
    if (!condition.ok) expect(condition.message).toContain("undeclared reference to 'jsonpatch'");
    expect(compileExpression("quantity('1').isInteger()", 'matchCondition', { params: false }).ok).toBe(true);
    const patch = compileExpression(
      '[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("a/b"), value: "x"}]',
      'jsonPatch',
      { params: false },
    );
    expect(patch.ok).toBe(true);
  });

  it('reports a library that fails to register, naming it, and keeps the others', () => {
    const broken = { name: 'test.broken', register: (r: { registerFunction(s: string, f: () => unknown): void }) => r.registerFunction('nonsense', () => 1) };
    const env = new CelEnvironment({ libraries: [broken, ...libraries] });
    expect(env.libraryErrors).toEqual(["CEL library 'test.broken': invalid function signature 'nonsense'"]);
    expect(env.compile("quantity('1Gi').isInteger()").ok).toBe(true);
  });
});
