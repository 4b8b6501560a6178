/**
 * Problems and findings quote the policy's own text: each message (and field path) stays within the
 * review messages' bound, however long the expression or key it names. A 400 KB broken expression used
 * to give an 800 KB message (the expression twice).
 */
import { describe, expect, it } from 'vitest';
import { compileKyvernoPolicy } from '../../src/kyverno/index.js';
import { MESSAGE_MAX_CHARS } from '../../src/guard/index.js';

const policy = (labels: Record<string, string>) => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'p' },
  spec: { rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, mutate: { patchStrategicMerge: { metadata: { labels } } } }] },
});

describe('the size of what compiling reports', () => {
  it('a huge broken expression: each message within the bound, still naming the field and the error', () => {
    const expression = `request${'.a'.repeat(200_000)} || 'q'`;
    const result = compileKyvernoPolicy(policy({ x: `{{ ${expression} }}` }));
    const reported = result.ok ? result.findings : result.problems;
    expect(reported.length).toBeGreaterThan(0);
    for (const r of reported) {
      expect(r.message.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS + 64);
      expect(r.path).toBe('spec.rules[0].mutate.patchStrategicMerge.metadata.labels.x');
    }
    expect(reported.map((r) => r.message).join('\n')).toMatch(/^variable \{\{ request.*characters cut.*SyntaxError: expression too deeply nested$/s);
  });
  it('a huge key in the field path', () => {
    const key = `{{ ${'k'.repeat(100_000)}( }}`;
    const result = compileKyvernoPolicy(policy({ [key]: 'v' }));
    const reported = result.ok ? result.findings : result.problems;
    expect(reported.length).toBeGreaterThan(0);
    for (const r of reported) expect(r.path.length + r.message.length).toBeLessThanOrEqual(2 * (MESSAGE_MAX_CHARS + 64));
  });
});
