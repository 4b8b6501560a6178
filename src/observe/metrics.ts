/**
 * A small Prometheus text-format registry (exposition format 0.0.4): counters, gauges read at scrape
 * time, and histograms. One registry per app, so two apps in one process (tests, several clusters) never
 * share figures.
 */

type Labels = Readonly<Record<string, string>>;

const HELP_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n' };
const LABEL_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '"': '\\"' };

function labelText(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  const parts = keys.sort().map((k) => `${k}="${labels[k].replace(/[\\\n"]/g, (c) => LABEL_ESCAPES[c])}"`);
  return `{${parts.join(',')}}`;
}

function numberText(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return '+Inf';
  if (n === -Infinity) return '-Inf';
  return String(n);
}

interface Metric {
  readonly name: string;
  readonly help: string;
  render(): string;
}

function header(name: string, help: string, type: string): string {
  return `# HELP ${name} ${help.replace(/[\\\n]/g, (c) => HELP_ESCAPES[c])}\n# TYPE ${name} ${type}\n`;
}

export class Counter implements Metric {
  private readonly values = new Map<string, number>();
  constructor(readonly name: string, readonly help: string) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = labelText(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  get(labels: Labels = {}): number {
    return this.values.get(labelText(labels)) ?? 0;
  }

  render(): string {
    let out = header(this.name, this.help, 'counter');
    for (const [labels, value] of this.values) out += `${this.name}${labels} ${numberText(value)}\n`;
    return out;
  }
}

/** A metric whose samples are computed when scraped (counts or totals owned by another module). */
class CallbackMetric implements Metric {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly type: 'gauge' | 'counter',
    private readonly read: () => Iterable<[Labels, number]>,
  ) {}

  render(): string {
    let out = header(this.name, this.help, this.type);
    for (const [labels, value] of this.read()) out += `${this.name}${labelText(labels)} ${numberText(value)}\n`;
    return out;
  }
}

/** A gauge read at scrape time (policy-set counts, cache sizes). */
export class CallbackGauge extends CallbackMetric {
  constructor(name: string, help: string, read: () => Iterable<[Labels, number]>) {
    super(name, help, 'gauge', read);
  }
}

/** A monotonic total kept by another module (e.g. cache hits), read at scrape time. */
export class CallbackCounter extends CallbackMetric {
  constructor(name: string, help: string, read: () => Iterable<[Labels, number]>) {
    super(name, help, 'counter', read);
  }
}

export class Histogram implements Metric {
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(readonly name: string, readonly help: string, private readonly buckets: readonly number[]) {}

  observe(value: number, labels: Labels = {}): void {
    const key = labelText(labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]) s.counts[i]++;
    s.sum += value;
    s.count++;
  }

  render(): string {
    let out = header(this.name, this.help, 'histogram');
    for (const s of this.series.values()) {
      this.buckets.forEach((le, i) => {
        out += `${this.name}_bucket${labelText({ ...s.labels, le: numberText(le) })} ${s.counts[i]}\n`;
      });
      out += `${this.name}_bucket${labelText({ ...s.labels, le: '+Inf' })} ${s.count}\n`;
      out += `${this.name}_sum${labelText(s.labels)} ${numberText(s.sum)}\n`;
      out += `${this.name}_count${labelText(s.labels)} ${s.count}\n`;
    }
    return out;
  }
}

export class Registry {
  private readonly metrics: Metric[] = [];

  register<M extends Metric>(metric: M): M {
    if (this.metrics.some((m) => m.name === metric.name)) throw new Error(`metric ${metric.name} registered twice`);
    this.metrics.push(metric);
    return metric;
  }

  /** The exposition text; a metric whose callback throws is left out rather than failing the scrape. */
  render(): string {
    let out = '';
    for (const m of this.metrics) {
      try {
        out += m.render();
      } catch {
        // A broken gauge callback must not take the other figures down.
      }
    }
    return out;
  }
}

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
