import { describe, expect, it } from 'vitest';
import { CallbackGauge, Counter, Histogram, Registry } from '../../src/observe/metrics.js';

describe('Prometheus registry', () => {
  it('renders counters, callback gauges and histograms in the text format', () => {
    const r = new Registry();
    const c = r.register(new Counter('x_total', 'Things.\nCounted \\ here'));
    c.inc({ outcome: 'a"b' });
    c.inc({ outcome: 'a"b' }, 2);
    r.register(new CallbackGauge('g', 'A gauge.', () => [[{ kind: 'k' }, 4]]));
    const h = r.register(new Histogram('h_seconds', 'Latency.', [0.1, 1]));
    h.observe(0.05);
    h.observe(0.5);
    h.observe(5);
    expect(r.render()).toBe(
      [
        '# HELP x_total Things.\\nCounted \\\\ here',
        '# TYPE x_total counter',
        'x_total{outcome="a\\"b"} 3',
        '# HELP g A gauge.',
        '# TYPE g gauge',
        'g{kind="k"} 4',
        '# HELP h_seconds Latency.',
        '# TYPE h_seconds histogram',
        'h_seconds_bucket{le="0.1"} 1',
        'h_seconds_bucket{le="1"} 2',
        'h_seconds_bucket{le="+Inf"} 3',
        'h_seconds_sum 5.55',
        'h_seconds_count 3',
        '',
      ].join('\n'),
    );
  });

  it('refuses a name twice and survives a failing callback', () => {
    const r = new Registry();
    r.register(new Counter('a', 'a'));
    expect(() => r.register(new Counter('a', 'a'))).toThrow('metric a registered twice');
    r.register(new CallbackGauge('bad', 'bad', () => {
      throw new Error('x');
    }));
    expect(r.render()).toContain('# TYPE a counter');
    expect(r.render()).not.toContain('bad');
  });
});
