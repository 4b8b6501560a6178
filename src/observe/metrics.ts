/**
 * A small Prometheus text-format registry (exposition format 0.0.4): counters, gauges read at scrape
 * time, and histograms. One registry per app, so two apps in one process (tests, several clusters) never
 * share figures.
 */

type Labels = Readonly<Record<string, string>>;

const HELP_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n' };
const LABEL_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '"': '\\"' };

function labelPart(name: string, value: string): string {
  return `${name}="${value.replace(/[\\\n"]/g, (c) => LABEL_ESCAPES[c])}"`;
}

function labelText(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  return `{${keys.sort().map((k) => labelPart(k, labels[k])).join(',')}}`;
}

/**
 * The label text of `labels` plus `le`, around the place of the `le` value: `[before, after]` with
 * labelText({...labels, le: v}) === before + v + after. Built once per series when a histogram is rendered,
 * not once per bucket line (sorting and escaping the labels for each of its 14 lines made a scrape of many
 * policies' series take seconds of the thread that serves every request).
 */
function leLabelText(labels: Labels): [string, string] {
  const keys = Object.keys(labels).filter((k) => k !== 'le');
  keys.push('le');
  keys.sort();
  const at = keys.indexOf('le');
  const part = (k: string) => labelPart(k, labels[k]);
  const before = keys.slice(0, at).map(part);
  const after = keys.slice(at + 1).map(part);
  return [`{${before.map((p) => `${p},`).join('')}le="`, `"${after.map((p) => `,${p}`).join('')}}`];
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

/** One series of a counter, resolved once: `inc` is an addition, no label text is built. */
export interface CounterChild {
  inc(by?: number): void;
}

/** One series of a histogram, resolved once: `observe` finds a bucket and adds. */
export interface HistogramChild {
  observe(value: number): void;
}

export class Counter implements Metric {
  /** By label text, in the order first counted (the order /metrics lists them). */
  private readonly series = new Map<string, { value: number }>();
  constructor(readonly name: string, readonly help: string) {}

  inc(labels: Labels = {}, by = 1): void {
    this.cell(labelText(labels)).value += by;
  }

  /**
   * The series of `labels`, for code that counts it on every request (see ChildTable). It is listed, at
   * 0, from this call on: resolve a child just before its first `inc`.
   */
  child(labels: Labels = {}): CounterChild {
    const cell = this.cell(labelText(labels));
    return { inc: (by = 1) => void (cell.value += by) };
  }

  get(labels: Labels = {}): number {
    return this.series.get(labelText(labels))?.value ?? 0;
  }

  /**
   * Drops the series of `labels` (a policy no longer served): /metrics no longer lists it, and a child
   * still held counts nowhere. Counted again, it starts from 0, as Prometheus expects of a new series.
   */
  remove(labels: Labels): void {
    this.series.delete(labelText(labels));
  }

  private cell(key: string): { value: number } {
    let cell = this.series.get(key);
    if (!cell) this.series.set(key, (cell = { value: 0 }));
    return cell;
  }

  render(): string {
    let out = header(this.name, this.help, 'counter');
    for (const [labels, cell] of this.series) out += `${this.name}${labels} ${numberText(cell.value)}\n`;
    return out;
  }
}

/**
 * Children of a metric by the values of its labels (in the order of `names`), found through one Map per
 * label: a lookup builds no string; a label text is built once per new series.
 */
export class ChildTable<C> {
  private readonly root = new Map<string | number, unknown>();
  constructor(
    private readonly names: readonly string[],
    private readonly create: (labels: Labels) => C,
  ) {}

  /** `values` in the order of the names; a number stands for its decimal text (an HTTP status). */
  get(...values: (string | number)[]): C {
    let node = this.root;
    const last = this.names.length - 1;
    for (let i = 0; i < last; i++) {
      let next = node.get(values[i]) as Map<string | number, unknown> | undefined;
      if (next === undefined) node.set(values[i], (next = new Map()));
      node = next;
    }
    let child = node.get(values[last]) as C | undefined;
    if (child === undefined) {
      const labels: Record<string, string> = {};
      this.names.forEach((name, i) => (labels[name] = String(values[i])));
      node.set(values[last], (child = this.create(labels)));
    }
    return child;
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
  /** By label text, in the order first observed; `counts[i]` holds the observations in bucket i alone (cumulated when rendered). */
  private readonly series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
  constructor(readonly name: string, readonly help: string, private readonly buckets: readonly number[]) {}

  observe(value: number, labels: Labels = {}): void {
    this.add(this.seriesOf(labels), value);
  }

  /** The series of `labels` (listed from this call on: resolve a child just before its first `observe`). */
  child(labels: Labels = {}): HistogramChild {
    const s = this.seriesOf(labels);
    return { observe: (value) => this.add(s, value) };
  }

  /** Drops the series of `labels`, as Counter.remove. */
  remove(labels: Labels): void {
    this.series.delete(labelText(labels));
  }

  private seriesOf(labels: Labels) {
    const key = labelText(labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    return s;
  }

  private add(s: { counts: number[]; sum: number; count: number }, value: number): void {
    // The first bucket that holds the value; none (above the last bound, or NaN) counts only in +Inf.
    let i = 0;
    while (i < this.buckets.length && !(value <= this.buckets[i])) i++;
    if (i < this.buckets.length) s.counts[i]++;
    s.sum += value;
    s.count++;
  }

  render(): string {
    let out = header(this.name, this.help, 'histogram');
    const bucket = `${this.name}_bucket`;
    const bounds = this.buckets.map(numberText);
    for (const [labels, s] of this.series) {
      const [before, after] = leLabelText(s.labels);
      let cumulative = 0;
      for (let i = 0; i < bounds.length; i++) {
        cumulative += s.counts[i];
        out += `${bucket}${before}${bounds[i]}${after} ${cumulative}\n`;
      }
      out += `${bucket}${before}+Inf${after} ${s.count}\n`;
      out += `${this.name}_sum${labels} ${numberText(s.sum)}\n`;
      out += `${this.name}_count${labels} ${s.count}\n`;
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
