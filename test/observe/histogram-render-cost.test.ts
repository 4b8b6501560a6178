/**
 * /metrics with many policies and clusters: amender_policy_duration_seconds and
 * amender_kyverno_rule_duration_seconds hold one histogram series per policy (or rule) per set, 15 lines
 * each. Rendering sorted, escaped and joined a series' labels again for every one of its bucket lines:
 * 100 clusters of 50 Kyverno policies of 4 rules (400,000 lines) took 3 to 7 s per scrape on the Node
 * server's main thread, which carries every request; about 0.4 s now. Work is counted, not timed: the
 * labels are a proxy that counts how often they are listed while the registry renders.
 */
import { describe, expect, it } from 'vitest';
import { Histogram, Registry } from '../../src/observe/metrics.js';

/** `labels`, counting each listing of its keys in `count.lists`. */
function counted(labels: Record<string, string>, count: { lists: number }): Record<string, string> {
  return new Proxy(labels, {
    ownKeys(target) {
      count.lists++;
      return Reflect.ownKeys(target);
    },
  });
}

describe('a histogram with many series, rendered', () => {
  it('lists each series’ labels once per render, however many buckets it has', () => {
    const buckets = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1, 5];
    const registry = new Registry();
    const h = registry.register(new Histogram('amender_policy_duration_seconds', 'Time.', buckets));
    const count = { lists: 0 };
    const SERIES = 200;
    for (let i = 0; i < SERIES; i++) h.child(counted({ policy_set: `cluster-${i % 20}`, engine: 'kyverno', policy: `p-${i}` }, count)).observe(0.0003);
    count.lists = 0;
    const text = registry.render();
    expect(text.split('\n').filter((l) => l.startsWith('amender_policy_duration_seconds_bucket'))).toHaveLength(SERIES * (buckets.length + 1));
    expect(count.lists).toBeLessThanOrEqual(SERIES);
  });

  it('writes the same text as before: labels sorted with le among them, escaped, sum and count without le', () => {
    const registry = new Registry();
    const h = registry.register(new Histogram('h_seconds', 'Time.', [0.5, 1]));
    h.observe(0.7, { z: 'last', a: 'q"u\\o\nte', policy: 'p' });
    h.observe(2, { a: 'first' });
    h.observe(0.1);
    expect(registry.render()).toBe(
      [
        '# HELP h_seconds Time.',
        '# TYPE h_seconds histogram',
        'h_seconds_bucket{a="q\\"u\\\\o\\nte",le="0.5",policy="p",z="last"} 0',
        'h_seconds_bucket{a="q\\"u\\\\o\\nte",le="1",policy="p",z="last"} 1',
        'h_seconds_bucket{a="q\\"u\\\\o\\nte",le="+Inf",policy="p",z="last"} 1',
        'h_seconds_sum{a="q\\"u\\\\o\\nte",policy="p",z="last"} 0.7',
        'h_seconds_count{a="q\\"u\\\\o\\nte",policy="p",z="last"} 1',
        'h_seconds_bucket{a="first",le="0.5"} 0',
        'h_seconds_bucket{a="first",le="1"} 0',
        'h_seconds_bucket{a="first",le="+Inf"} 1',
        'h_seconds_sum{a="first"} 2',
        'h_seconds_count{a="first"} 1',
        'h_seconds_bucket{le="0.5"} 1',
        'h_seconds_bucket{le="1"} 1',
        'h_seconds_bucket{le="+Inf"} 1',
        'h_seconds_sum 0.1',
        'h_seconds_count 1',
        '',
      ].join('\n'),
    );
  });
});
