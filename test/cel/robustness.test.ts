/**
 * Nothing throws past the module: random token soup and random mutations of real expressions,
 * compiled for every role and evaluated, always come back as results or messages.
 */
import { describe, expect, it } from 'vitest';
import { Evaluation, RUNTIME_CEL_COST_BUDGET, ROLES, compileExpression, type AdmissionInput } from '../../src/cel/index.js';

const TOKENS = [
  'object', 'oldObject', 'request', 'params', 'variables', 'namespaceObject', 'authorizer', 'x', 'has', 'all', 'exists',
  'exists_one', 'map', 'filter', 'size', 'int', 'string', 'dyn', 'type', 'optional', 'of', 'none', 'orValue', 'Object',
  'JSONPatch', 'spec', 'metadata', 'name', 'containers', '.', '.?', '[', '[?', ']', '(', ')', '{', '{?', '}', ',', ':',
  '?', '+', '-', '*', '/', '%', '!', '&&', '||', '==', '!=', '<', '<=', '>', '>=', 'in', 'true', 'false', 'null', '0',
  '1', '-1', '1u', '2.5', '1e308', "'a'", '"b"', "b'c'", "r'd'", "'''e'''", '9223372036854775807', '18446744073709551615u',
  'cel', 'bind', 'transformMap', 'lists', 'range', 'quantity', "'1Gi'", 'matches', "'('", 'timestamp', 'duration', "'1h'",
];

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEEDS = [
  "object.spec.containers.all(c, c.image.startsWith('x'))",
  "[JSONPatch{op: 'add', path: '/a', value: {'k': [1, 2.0]}}]",
  "Object{spec: Object.spec{replicas: int(params.n)}}",
  "variables.v.map(x, x + 1).filter(y, y > 2).size() == 1",
  "has(object.metadata.labels) && object.metadata.?labels['app'].orValue('') == 'web'",
];

const input: AdmissionInput = {
  object: { metadata: { name: 'n', labels: { app: 'web' } }, spec: { containers: [{ image: 'x' }] } },
  request: { operation: 'CREATE' },
  params: { n: 2 },
};

function exercise(expr: string): void {
  for (const role of ROLES) {
    const r = compileExpression(expr, role, { params: true });
    if (!r.ok) {
      expect(typeof r.message).toBe('string');
      // An engine bug would surface as a caught JS exception, not a CEL message.
      expect(r.message, expr).not.toContain('internal error');
      continue;
    }
    const out = new Evaluation(input, { budget: RUNTIME_CEL_COST_BUDGET }).evaluate(r.compiled);
    expect(typeof out.ok).toBe('boolean');
    if (!out.ok) expect(out.message, expr).not.toContain('internal error');
  }
}

describe('robustness', () => {
  it('random token sequences', () => {
    const next = rng(12345);
    for (let i = 0; i < 1500; i++) {
      const n = 1 + Math.floor(next() * 12);
      const parts: string[] = [];
      for (let j = 0; j < n; j++) parts.push(TOKENS[Math.floor(next() * TOKENS.length)]);
      exercise(parts.join(next() < 0.5 ? ' ' : ''));
    }
  });

  it('random edits of real expressions', () => {
    const next = rng(678);
    for (let i = 0; i < 1500; i++) {
      let s = SEEDS[i % SEEDS.length];
      const edits = 1 + Math.floor(next() * 3);
      for (let k = 0; k < edits; k++) {
        const at = Math.floor(next() * (s.length + 1));
        const op = next();
        if (op < 0.4) s = s.slice(0, at) + s.slice(at + 1);
        else if (op < 0.8) s = s.slice(0, at) + TOKENS[Math.floor(next() * TOKENS.length)] + s.slice(at);
        else s = s.slice(0, at) + String.fromCharCode(32 + Math.floor(next() * 95)) + s.slice(at);
      }
      exercise(s);
    }
  });
});
