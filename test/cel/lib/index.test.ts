import { Environment } from '@marcbachmann/cel-js';
import { describe, expect, it } from 'vitest';
import { libraries, MUTATION_ONLY_LIBRARIES, NAMESPACE_TYPES } from '../../../src/cel/lib/index.js';

describe('library index', () => {
  it('lists every library once, each registering into a fresh environment', () => {
    const names = libraries.map((l) => l.name);
    expect(new Set(names).size).toBe(names.length);
    for (let i = 0; i < 2; i++) {
      const env = new Environment({ enableOptionalTypes: true });
      for (const lib of libraries) lib.register(env);
      expect(env.evaluate('jsonpatch.escapeKey("a/b") + strings.quote("x")')).toBe('a~1b"x"');
    }
  });

  it('names the mutation-only libraries and the namespaces', () => {
    expect([...MUTATION_ONLY_LIBRARIES]).toEqual(['kubernetes.jsonpatch']);
    expect(new Set(NAMESPACE_TYPES.values())).toEqual(new Set(['strings', 'sets', 'lists', 'ip', 'format', 'jsonpatch']));
  });

  it('lets the matchCondition environment leave jsonpatch out', () => {
    const env = new Environment({ enableOptionalTypes: true });
    for (const lib of libraries) if (!MUTATION_ONLY_LIBRARIES.has(lib.name)) lib.register(env);
    expect(env.check('jsonpatch.escapeKey("a")').valid).toBe(false);
    expect(env.evaluate('quantity("1").isInteger()')).toBe(true);
  });
});
