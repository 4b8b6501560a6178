/**
 * Keeps one policy set (the default set, or one cluster's) up to date from its sources. A refresh reads
 * every source (see snapshot.ts for what is fetched), and when any document changed builds a new set
 * and swaps it in with one assignment, so a request sees the old set or the new one, never a mix. When a
 * source cannot be read (unreachable, listing refused, over a limit, too slow), nothing is applied: the
 * last good set stays in force, and the failure shows in the logs, in `sourceErrors` (/readyz) and in the
 * refresh metrics. Refreshes never overlap; on Node a timer repeats them, on Lambda and Workers (where
 * timers do not outlive a request) `refreshIfDue()` is called per request instead.
 */
import { buildPolicySetInSlices, type ParsedSource, type PolicySet, type PolicySetProvider, type PolicySetState, type Problem } from '../policyset/index.js';
import { middleTruncatedForLog, type Logger } from '../observe/index.js';
import { deadline, errorMessage, untilAborted } from './bounds.js';
import { keepLastGood, nextSettleAt, readSource, snapshotKey, type CachedDocument, type PendingChange, type ReadCounts, type SourceCache } from './snapshot.js';
import { SetBytes } from './set-bytes.js';
import { nextTurn } from './turns.js';
import { emptySourceWarning, unboundPolicyWarnings } from './source-warnings.js';
import { DEFAULT_LOAD_LIMITS, SourceError, type LoadLimits, type PolicySource } from './types.js';

export interface RefresherOptions {
  /** The set's name in logs and metrics: `default`, or the cluster's name. */
  name: string;
  sources: readonly PolicySource[];
  logger?: Logger;
  /** Time between refreshes (the timer of `start()` and the age checked by `refreshIfDue()`); 0 = never. */
  intervalMs?: number;
  /** Quiet time after a change notification (a watched folder) before refreshing. */
  debounceMs?: number;
  /**
   * Once started (`start()`), how long a change of a document written in place (a plain folder's file)
   * must read the same before it takes effect (snapshot.ts): a write caught halfway is never taken as a
   * new version. Default DEFAULT_SETTLE_MS; 0 takes every change at once. Not applied before `start()`
   * (a caller driving `refresh()` itself could not be called back) nor to a source's first read.
   */
  settleMs?: number;
  limits?: Partial<LoadLimits>;
  /** See ReadOptions.trustListedVersions. */
  trustListedVersions?: boolean;
  /**
   * How documents become a set (default buildPolicySetInSlices: the event loop turns between slices of the
   * build, as between those of a parse; a set of 3,000 MutatingAdmissionPolicies compiled in one go held
   * the thread that answers probes and reviews 3 s).
   */
  build?: (parsed: ParsedSource[]) => PolicySet;
  /**
   * Work of the platform with a new set's documents once it is built and before it is applied, on the
   * thread that answers requests: the Node server encodes a large set for its review workers a slice at a
   * time (ReviewPool.encodeAhead), where the hand-over after applying did it at once. `name`: the set's;
   * `bytes`: what the documents held as text. It ends when `signal` aborts (stop()); a failure of its own
   * is logged and the set applied all the same (the hand-over then does the work at once, as without it).
   * The set is applied in the same turn as it resolves.
   */
  beforeApply?: (inputs: readonly ParsedSource[], context: { name: string; bytes: number; signal: AbortSignal }) => Promise<void>;
  now?: () => Date;
}

export type RefreshOutcome = 'applied' | 'unchanged' | 'failed';

export interface RefreshResult extends ReadCounts {
  outcome: RefreshOutcome;
  errors: readonly string[];
}

export interface RefreshStats extends ReadCounts {
  attempts: number;
  failures: number;
  /** Sets built and applied. */
  applied: number;
  lastAttemptAt?: Date;
  lastSuccessAt?: Date;
  /** Documents in the set in force. */
  documents: number;
  /**
   * Files or objects the set in force refuses, whole or in part (a document that does not parse, validate
   * or compile): their last good version stays in force, or, never accepted, they are left out.
   */
  refusedDocuments: number;
}

export const DEFAULT_REFRESH_INTERVAL_MS = 60_000;
export const DEFAULT_DEBOUNCE_MS = 500;
/** The first retry of a set that never loaded (nextRefreshInMs). */
const FIRST_RETRY_MS = 1_000;
/**
 * Twice the watch's quiet time: a writer that keeps writing (an editor's save, `cp`, `scp`, a shell
 * redirection) is never quiet that long mid-file; one that stops for longer is taken as done.
 */
export const DEFAULT_SETTLE_MS = 1_000;
/**
 * `policy problem` lines one applied set writes, and `policy has no binding` lines. Every apply logs them
 * again, and a source of thousands of broken documents (or unbound policies) would write as many lines at
 * each refresh that changes the set: the first hundred say what is wrong, one more line counts the rest
 * (`amender validate` lists them all).
 */
export const MAX_LOGGED_PROBLEMS = 100;
/**
 * Characters of a `policy problem` line's message. A field error quotes the value it refuses, and a CEL
 * expression can be most of a 1 MiB file: the first and last halves say where and why (the cause is at
 * the end); a quoted YAML line is far shorter.
 */
export const MAX_LOGGED_PROBLEM_MESSAGE = 4096;

export class PolicySetRefresher {
  readonly name: string;
  private readonly sources: readonly PolicySource[];
  private readonly logger: Logger;
  private readonly limits: LoadLimits;
  private readonly build: (parsed: ParsedSource[], signal: AbortSignal) => Promise<PolicySet>;
  private readonly now: () => Date;
  private readonly intervalMs: number;
  private readonly debounceMs: number;
  private readonly trustListedVersions: boolean;
  private readonly settleMs: number;
  /** Per source: changes of in-place documents seen and not yet in force. */
  private readonly pending: Map<string, PendingChange>[];
  /** Per source: read whole at least once (a first read takes what it finds: nothing is held yet). */
  private readonly readOnce: boolean[];
  private readonly beforeApply: RefresherOptions['beforeApply'];
  /**
   * Per source, document name → the refresh that first found it. The set is built from the oldest
   * documents first, so when a new file defines a name an older one defines (a copy left beside the
   * original, `a-copy.yaml` before `policy.yaml`), the new one is the duplicate left out, as the API
   * server refuses a second object of a name, whatever the files' order.
   */
  private readonly arrivals: Map<string, number>[];
  private arrivalCount = 0;
  private started = false;
  private recheck: ReturnType<typeof setTimeout> | undefined;

  private state: PolicySetState;
  private lastInputs: readonly ParsedSource[] = [];
  private generation = 0;
  private caches: SourceCache[];
  private appliedKey: string | undefined;
  private running: Promise<RefreshResult> | undefined;
  private rerun = false;
  /** Refreshes that failed in a row while no set has ever loaded (nextRefreshInMs). */
  private failuresUnloaded = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private debounce: ReturnType<typeof setTimeout> | undefined;
  private unwatch: (() => void)[] = [];
  private stopped = false;
  /** The refresh in flight's own deadline; made per refresh (Workers tie an AbortSignal to one request). */
  private inFlight: { abort: (reason: Error) => void } | undefined;
  private counters: RefreshStats = { attempts: 0, failures: 0, applied: 0, documents: 0, refusedDocuments: 0, fetched: 0, notModified: 0, skipped: 0 };

  constructor(options: RefresherOptions) {
    if (options.sources.length === 0) throw new Error(`policy set ${options.name}: no source configured`);
    this.name = options.name;
    this.sources = options.sources;
    this.logger = options.logger ?? (() => {});
    this.limits = { ...DEFAULT_LOAD_LIMITS, ...options.limits };
    const build = options.build;
    // What the last build was made from: the state in force carries it (a worker pool rebuilds from it).
    this.build = async (parsed, signal) => {
      this.lastInputs = parsed;
      return build ? build(parsed) : buildPolicySetInSlices(parsed, {}, () => untilAborted(nextTurn(), signal));
    };
    this.beforeApply = options.beforeApply;
    this.now = options.now ?? (() => new Date());
    this.intervalMs = options.intervalMs ?? DEFAULT_REFRESH_INTERVAL_MS;
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS;
    this.trustListedVersions = options.trustListedVersions ?? true;
    this.settleMs = Math.max(0, options.settleMs ?? DEFAULT_SETTLE_MS);
    this.pending = this.sources.map(() => new Map());
    this.readOnce = this.sources.map(() => false);
    this.arrivals = this.sources.map(() => new Map());
    this.state = Object.freeze({ source: this.sources.map((s) => s.uri).join(','), sourceErrors: [] });
    this.caches = this.sources.map(() => new Map());
  }

  /** The state in force, for `createApp({ policies })` and the cluster routes. */
  readonly provider: PolicySetProvider = () => this.state;

  stats(): Readonly<RefreshStats> {
    return { ...this.counters };
  }

  /**
   * Reads the sources and applies a new set when something changed. Concurrent calls share the refresh
   * in flight; a call during a refresh also schedules one more right after it (a change may have come
   * after the running refresh listed its source).
   */
  refresh(): Promise<RefreshResult> {
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    this.running = this.run().finally(() => {
      this.running = undefined;
      this.scheduleRecheck();
      // Started, and still no set after this refresh (the first load, SIGHUP, a watch): the next one comes
      // after the backoff (nextRefreshInMs), not after a timer set before the failure (the interval, or
      // none with 0), which would leave the set's reviews answered 503 that long.
      if (this.started && !this.stopped && this.state.set === undefined) this.schedule();
      if (this.rerun && !this.stopped) {
        this.rerun = false;
        void this.refresh();
      }
    });
    return this.running;
  }

  /** The refresh in flight, if any; waiting for it asks for no further refresh (`refresh()` would). */
  current(): Promise<RefreshResult> | undefined {
    return this.running;
  }

  /** Starts a refresh when the last attempt is older than the interval (Lambda, Workers); else nothing. */
  refreshIfDue(): Promise<RefreshResult> | undefined {
    if (this.running) return undefined;
    const last = this.counters.lastAttemptAt;
    if (last && (this.intervalMs <= 0 || this.now().getTime() - last.getTime() < this.intervalMs)) return undefined;
    return this.refresh();
  }

  /**
   * Repeats refreshes every interval and follows change notifications (Node). May be called before the
   * first `refresh()` (the Node server starts its timers, then loads): a refresh that leaves no set
   * schedules the next one after the backoff.
   */
  start(): void {
    if (this.stopped) throw new Error(`policy set ${this.name}: the refresher was stopped`);
    this.started = true;
    for (const source of this.sources) {
      if (source.watch) this.unwatch.push(source.watch(() => this.changed()));
    }
    this.schedule();
  }

  /** Stops the timer and the watches and aborts a refresh in flight (the set in force stays). */
  stop(): void {
    this.stopped = true;
    this.inFlight?.abort(new Error('the refresher was stopped'));
    clearTimeout(this.timer);
    clearTimeout(this.debounce);
    clearTimeout(this.recheck);
    for (const unwatch of this.unwatch.splice(0)) unwatch();
  }

  private schedule(): void {
    const inMs = this.nextRefreshInMs();
    if (inMs === undefined || this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.refresh().finally(() => this.schedule());
    }, inMs);
    unrefTimer(this.timer);
  }

  /**
   * The interval (none for 0); but while no set has ever loaded and the last refresh failed, sooner, and
   * with no interval too: each of this set's reviews is answered 503 meanwhile, so a source that failed
   * at start (a store briefly down, a file being written) is read again after 1 s, then 2, 4... up to the
   * interval (the default interval without one).
   */
  private nextRefreshInMs(): number | undefined {
    const interval = this.intervalMs > 0 ? this.intervalMs : undefined;
    if (this.state.set !== undefined || this.failuresUnloaded === 0) return interval;
    return Math.min(interval ?? DEFAULT_REFRESH_INTERVAL_MS, FIRST_RETRY_MS * 2 ** Math.min(this.failuresUnloaded - 1, 20));
  }

  /** Looks again once the soonest change seen can have settled (another refresh may come first). */
  private scheduleRecheck(): void {
    clearTimeout(this.recheck);
    this.recheck = undefined;
    if (this.stopped || !this.started || this.settleMs <= 0) return;
    const now = settleClock();
    let soonest: number | undefined;
    for (const pending of this.pending) {
      const at = nextSettleAt({ ms: this.settleMs, now: () => now, pending });
      if (at !== undefined) soonest = Math.min(soonest ?? Infinity, at);
    }
    if (soonest === undefined) return;
    this.recheck = setTimeout(() => void this.refresh(), Math.max(0, soonest - now) + 10);
    unrefTimer(this.recheck);
  }

  /** A change notification: wait until changes stop for `debounceMs`, then refresh. */
  private changed(): void {
    if (this.stopped) return;
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.refresh(), this.debounceMs);
    unrefTimer(this.debounce);
  }

  private async run(): Promise<RefreshResult> {
    const counts: ReadCounts = { fetched: 0, notModified: 0, skipped: 0 };
    this.counters.attempts++;
    this.counters.lastAttemptAt = this.now();
    const stop = new AbortController();
    this.inFlight = stop;
    // Bounds the listings and fetches; the time spent parsing what they brought is not counted.
    const { signal, done, notCounted } = deadline(this.limits.timeoutMs, `refreshing policy set ${this.name}`, stop.signal);
    const errors: string[] = [];
    // The set's bound on bytes, counted as the sources are read (not once every body is in memory).
    const setBytes = new SetBytes(this.limits.maxTotalBytes, this.name);
    try {
      const read = await Promise.allSettled(
        this.sources.map((source, i) => {
          const settle = this.started && this.readOnce[i] && this.settleMs > 0 ? { settle: { ms: this.settleMs, now: settleClock, pending: this.pending[i] } } : {};
          return readSource(source, this.caches[i], { signal, limits: this.limits, trustListedVersions: this.trustListedVersions, setBytes, parsing: notCounted, ...settle }, counts);
        }),
      );
      read.forEach((r, i) => {
        if (r.status === 'fulfilled') {
          this.caches[i] = r.value;
          this.readOnce[i] = true;
        } else errors.push(describeFailure(this.sources[i], r.reason));
      });
    } finally {
      done();
      this.inFlight = undefined;
      this.addCounts(counts);
    }
    const total = this.caches.reduce((sum, cache) => sum + [...cache.values()].reduce((s, d) => s + d.bytes, 0), 0);
    if (errors.length === 0) {
      if (total > this.limits.maxTotalBytes) errors.push(`policy set ${this.name}: its documents hold ${total} bytes, over the limit of ${this.limits.maxTotalBytes}`);
    }
    if (errors.length > 0 && this.stopped) {
      // Abandoned by stop() (the server shutting down), not a source that cannot be read: no error line,
      // no failure counted, the state in force as it was.
      this.logger({ level: 'info', msg: 'policy refresh stopped', policySet: this.name });
      return { outcome: 'failed', errors, ...counts };
    }
    if (errors.length > 0) return this.fail(errors, counts);

    const key = snapshotKey(this.caches);
    if (key === this.appliedKey && this.state.set) {
      if (this.state.sourceErrors.length > 0) {
        this.state = Object.freeze({ ...this.state, sourceErrors: [] });
        this.logger({ level: 'info', msg: 'policy sources readable again', policySet: this.name });
      }
      this.counters.lastSuccessAt = this.now();
      this.logger({ level: 'debug', msg: 'policy sources unchanged', policySet: this.name, ...counts });
      return { outcome: 'unchanged', errors: [], ...counts };
    }
    // The build and the platform's work before applying: stop() ends them at their next slice.
    const building = new AbortController();
    this.inFlight = building;
    let set: PolicySet | undefined;
    try {
      set = await this.buildKeepingGoodVersions(building.signal);
      if (this.beforeApply && !this.stopped) await this.runBeforeApply(this.beforeApply, total, building.signal);
    } catch (err) {
      // buildPolicySet reports bad documents as problems; a throw here is a bug, and the set in force stays.
      if (!this.stopped) return this.fail([`policy set ${this.name}: building the set failed: ${errorMessage(err)}`], counts);
    } finally {
      this.inFlight = undefined;
    }
    if (this.stopped || !set) {
      this.logger({ level: 'info', msg: 'policy refresh stopped', policySet: this.name });
      return { outcome: 'failed', errors: ['the refresher was stopped'], ...counts };
    }
    const loadedAt = this.now();
    const emptySources = this.sources
      .map((source, i) => emptySourceWarning(source.uri, [...this.caches[i].values()].map((d) => d.parsed)))
      .filter((w): w is string => w !== undefined);
    const unbound = unboundPolicyWarnings(set, this.caches.flatMap((cache) => [...cache.values()].map((d) => d.parsed)));
    const warnings = [...emptySources, ...unbound];
    this.state = Object.freeze({
      set,
      source: this.state.source,
      loadedAt,
      sourceErrors: [],
      ...(warnings.length > 0 ? { warnings: Object.freeze(warnings) } : {}),
      inputs: this.lastInputs,
      generation: ++this.generation,
    });
    this.appliedKey = key;
    this.counters.applied++;
    this.counters.lastSuccessAt = loadedAt;
    this.counters.documents = this.caches.reduce((n, cache) => n + [...cache.values()].reduce((m, d) => m + d.parsed.documents.length, 0), 0);
    this.counters.refusedDocuments = refusedSources(set).size;
    this.logBounded(set.problems, 'policy problem', 'policy problems not logged', 'problems', (problem) => ({ ...problem, message: middleTruncatedForLog(problem.message, MAX_LOGGED_PROBLEM_MESSAGE) }));
    for (const warning of emptySources) this.logger({ level: 'warn', msg: 'policy source holds no policy', policySet: this.name, warning });
    this.logBounded(unbound, 'policy has no binding', 'policies with no binding not logged', 'policies', (warning) => ({ warning }));
    this.logger({
      level: 'info',
      msg: 'policy set applied',
      policySet: this.name,
      documents: this.counters.documents,
      refusedDocuments: this.counters.refusedDocuments,
      counts: set.counts,
      ...counts,
    });
    return { outcome: 'applied', errors: [], ...counts };
  }

  /**
   * Builds the set; when the new version of a document is refused by the set (a policy cut off halfway
   * still parses, but no longer validates or compiles: problems with effect `ignored`, as the API server
   * refuses such a create) and an earlier version was accepted, builds again with the earlier version in
   * force and the new version's problems reported (KEPT_NOTE). Documents the set accepts whole become the
   * last good versions; a refused document never accepted before is left out, the others load.
   */
  private async buildKeepingGoodVersions(signal: AbortSignal): Promise<PolicySet> {
    const docs = this.oldestFirst();
    let set = await this.build(docs.map((d) => d.parsed), signal);
    const refused = new Map<string, Problem[]>();
    for (const p of set.problems) {
      if (p.effect !== 'ignored') continue;
      let list = refused.get(p.source);
      if (!list) refused.set(p.source, (list = []));
      list.push(p);
    }
    let kept = false;
    for (const d of docs) {
      if (d.parsed !== d.fresh) continue; // already the last good version (the new one did not read)
      const problems = refused.get(d.label);
      if (!problems) d.lastGood = d.fresh;
      else if (d.lastGood && d.lastGood !== d.fresh) {
        d.parsed = keepLastGood(problems, d.lastGood);
        kept = true;
      }
    }
    if (kept) set = await this.build(docs.map((d) => d.parsed), signal);
    return set;
  }

  /** Runs `beforeApply` on the inputs just built; its own failure is logged (stop() ending it is not). */
  private async runBeforeApply(beforeApply: NonNullable<RefresherOptions['beforeApply']>, bytes: number, signal: AbortSignal): Promise<void> {
    try {
      await beforeApply(this.lastInputs, { name: this.name, bytes, signal });
    } catch (err) {
      if (!this.stopped) this.logger({ level: 'warn', msg: 'policy set preparation failed', policySet: this.name, error: errorMessage(err) });
    }
  }

  /** Every document read, those found at an earlier refresh first, each source's in name order within a refresh. */
  private oldestFirst(): CachedDocument[] {
    const arrival = ++this.arrivalCount;
    const found = this.caches.flatMap((cache, i) => {
      const arrivals = this.arrivals[i];
      for (const name of arrivals.keys()) if (!cache.has(name)) arrivals.delete(name);
      return [...cache].map(([name, doc]) => {
        if (!arrivals.has(name)) arrivals.set(name, arrival);
        return { doc, arrival: arrivals.get(name)! };
      });
    });
    // Array.prototype.sort is stable: within one refresh's arrivals, the order read stays.
    return found.sort((a, b) => a.arrival - b.arrival).map((f) => f.doc);
  }

  /**
   * One warn line `msg` per item, up to MAX_LOGGED_PROBLEMS, then one line `restMsg` with the `count` left
   * out and the total under `totalField`.
   */
  private logBounded<T>(items: readonly T[], msg: string, restMsg: string, totalField: string, fields: (item: T) => object): void {
    const logged = Math.min(items.length, MAX_LOGGED_PROBLEMS);
    for (let i = 0; i < logged; i++) this.logger({ level: 'warn', msg, policySet: this.name, ...fields(items[i]) });
    if (logged < items.length) this.logger({ level: 'warn', msg: restMsg, policySet: this.name, count: items.length - logged, [totalField]: items.length });
  }

  private fail(errors: string[], counts: ReadCounts): RefreshResult {
    this.counters.failures++;
    if (this.state.set === undefined) this.failuresUnloaded++;
    const kept = this.state.set
      ? `the set loaded at ${this.state.loadedAt?.toISOString()} stays in force`
      : 'no policy set is loaded yet';
    this.state = Object.freeze({ ...this.state, sourceErrors: Object.freeze(errors.map((e) => `${e} (${kept})`)) });
    this.logger({ level: 'error', msg: 'policy sources unreadable', policySet: this.name, errors, kept });
    return { outcome: 'failed', errors, ...counts };
  }

  private addCounts(counts: ReadCounts): void {
    this.counters.fetched += counts.fetched;
    this.counters.notModified += counts.notModified;
    this.counters.skipped += counts.skipped;
  }
}

/** The sources (files, objects) with a part the set refused. */
function refusedSources(set: PolicySet): Set<string> {
  return new Set(set.problems.filter((p) => p.effect === 'ignored').map((p) => p.source));
}

function describeFailure(source: PolicySource, reason: unknown): string {
  if (reason instanceof SourceError) return reason.message;
  return `${source.uri}: ${errorMessage(reason)}`;
}

/** The settle's clock: the wall clock, not `options.now` (a fixed test clock would never let a change settle). */
function settleClock(): number {
  return Date.now();
}

/** Node timers keep the process alive unless unref'd; other platforms' timers have no such method. */
function unrefTimer(timer: unknown): void {
  const t = timer as { unref?: () => void };
  if (typeof t?.unref === 'function') t.unref();
}
