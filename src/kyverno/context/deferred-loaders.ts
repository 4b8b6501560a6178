/**
 * Context entries loaded when a query first names them (Kyverno's deferred loading, on by default:
 * pkg/engine/context/deferred.go): an entry no query names is never loaded, so its failure is no error.
 * Entries are tried in registration order; while one loads, only those registered before it may load
 * (Kyverno's index bound), until a load ends (Kyverno then clears the bound). A plain name is looked up
 * among the query's words, a pattern name tested (./deferred-names.ts). Registration and removal follow
 * the context's checkpoints, which nest.
 */
import { isReviewAborted, type ReviewGuard } from '../../guard/index.js';
import type { JsonValue } from '../../json/index.js';
import { isPlainName, nameMatcher, plainNamesIn } from './deferred-names.js';

export interface DeferredEntry {
  readonly name: string;
  /** The pattern of a name that is not plain; plain names are looked up. */
  readonly matcher: ((query: string) => boolean) | undefined;
  readonly load: () => JsonValue;
  /** Replace the key (a variable) or merge into a map already there (configMap, apiCall). */
  readonly merge: boolean;
  /** The loader's wrapping of an error of the context (its size budget) while it adds the value. */
  readonly describe: ((message: string) => string) | undefined;
  /** Tried since the last reset (a failed load is not retried until then; no entry loads itself). */
  matched: boolean;
  loaded: boolean;
  /** The load count when its value was last computed (DeferredLoaders.loadCount). */
  loadedAt: number;
  /** Loaded, but its value failed to compute again at a restore: it stays out of the context. */
  absent: boolean;
  /** The checkpoint whose context its value (or absence) was last computed in by a restore. */
  computedIn: object | undefined;
  value: JsonValue;
  /** The value's JSON bytes once the context's size budget measured them (./context-budget.ts). */
  bytes: number | undefined;
}

export class DeferredLoaders {
  /** In registration order. */
  private readonly entries: DeferredEntry[] = [];
  /** Positions of the entries with a plain name, by name (ascending). */
  private readonly plainPositions = new Map<string, number[]>();
  private longestPlainName = 0;
  /** Positions of the entries whose name is a pattern (ascending). */
  private readonly patternPositions: number[] = [];
  /** Registered entries not loaded yet: once none is, a query has nothing to look for. */
  private unloaded = 0;
  /** While an entry loads, the entries before this position may load; -1 otherwise. */
  private loadingBound = -1;
  /** Values computed so far (loads and recomputations): a checkpoint keeps it. */
  private loads = 0;

  constructor(private readonly guard: ReviewGuard) {}

  /** How many entries are registered (a checkpoint keeps it). */
  get count(): number {
    return this.entries.length;
  }

  /** How many values were computed so far (a checkpoint keeps it). */
  get loadCount(): number {
    return this.loads;
  }

  /** Registers an entry; a name that is no RE2 pattern throws (Kyverno cannot register its loader). */
  add(name: string, load: () => JsonValue, merge: boolean, describe?: (message: string) => string): void {
    const plain = isPlainName(name);
    const matcher = plain ? undefined : nameMatcher(name);
    const at = this.entries.length;
    this.entries.push({
      name, matcher, load, merge, describe, matched: false, loaded: false, loadedAt: 0, absent: false, computedIn: undefined,
      value: null, bytes: undefined,
    });
    this.unloaded++;
    if (!plain) this.patternPositions.push(at);
    else {
      const positions = this.plainPositions.get(name);
      if (positions) positions.push(at);
      else this.plainPositions.set(name, [at]);
      if (name.length > this.longestPlainName) this.longestPlainName = name.length;
    }
  }

  /**
   * Back to the first `count` entries (a restore to a checkpoint taken after `since` values were
   * computed): later ones are dropped, every entry may be tried again, and `reload` is given each loaded
   * one to set again into the restored context. Kyverno's Reset loads every loaded entry again
   * (deferred.go loadData), which computes its value anew in the restored context: for a value computed
   * since the checkpoint (in a foreach element, say) that context differs, so it is computed again here
   * too, and when that fails (it read `element`, or an entry of the element) it is left out of the
   * context, the entry staying loaded: a query naming it then finds no such key, as in Kyverno. A value
   * computed before the checkpoint is part of it and would come out the same: it is set again as it is;
   * so is one computed at an earlier restore to the same `checkpoint` (the same context, the same result:
   * a foreach computes it once, not once per element).
   */
  reset(count: number, since: number, checkpoint: object, reload: (entry: DeferredEntry) => void): void {
    while (this.entries.length > count) {
      const d = this.entries.pop()!;
      if (!d.loaded) this.unloaded--;
      if (d.matcher) this.patternPositions.pop();
      else {
        const positions = this.plainPositions.get(d.name)!;
        positions.pop();
        if (positions.length === 0) this.plainPositions.delete(d.name);
      }
    }
    for (const d of this.entries) d.matched = false;
    for (let i = 0; i < this.entries.length; i++) {
      const d = this.entries[i];
      if (!d.loaded) continue;
      if (d.loadedAt > since && d.computedIn !== checkpoint) {
        d.absent = !this.recompute(d, i);
        d.computedIn = checkpoint;
      }
      if (!d.absent) reload(d);
    }
  }

  /** Computes a loaded entry's value again (at position `at`); false when that fails (Kyverno logs it). */
  private recompute(d: DeferredEntry, at: number): boolean {
    this.loadingBound = at;
    try {
      d.value = d.load();
      d.bytes = undefined;
      d.loadedAt = ++this.loads;
      return true;
    } catch (error) {
      if (isReviewAborted(error)) throw error;
      return false;
    } finally {
      this.loadingBound = -1;
    }
  }

  /** Loads, in order, the entries the query names (deferredLoaders.LoadMatching), giving each to `loaded`. */
  loadMatching(expression: string, loaded: (entry: DeferredEntry) => void): void {
    if (this.unloaded === 0) return;
    const named = this.plainPositions.size > 0 ? plainNamesIn(expression, this.longestPlainName) : undefined;
    // Kyverno reads the bound once per query (LoadMatching's `index`) ...
    const bound = Math.min(this.loadingBound >= 0 ? this.loadingBound : this.entries.length, this.entries.length);
    for (;;) {
      const found = this.firstNamed(expression, named, bound);
      if (found < 0) return;
      const entry = this.entries[found];
      this.loadingBound = found;
      try {
        entry.value = entry.load();
        entry.loaded = true;
        entry.loadedAt = ++this.loads;
        this.unloaded--;
      } finally {
        // ... and clears it when any load ends (loadData's deferred setLevelAndIndex(-1, -1)), not back
        // to the bound of the entry whose own load asked: after reading an earlier entry, the rest of
        // that load may read entries registered after it.
        this.loadingBound = -1;
      }
      loaded(entry);
    }
  }

  /**
   * The first entry before `bound` that the query names and that has not been tried since the last reset
   * (deferredLoaders.match), marked tried; -1 when none.
   */
  private firstNamed(expression: string, named: Set<string> | undefined, bound: number): number {
    let found = -1;
    if (named) {
      for (const name of named) {
        const positions = this.plainPositions.get(name);
        if (!positions) continue;
        for (const i of positions) {
          if (i >= bound || (found >= 0 && i >= found)) break;
          const d = this.entries[i];
          if (!d.matched && !d.loaded) {
            found = i;
            break;
          }
        }
      }
    }
    for (const i of this.patternPositions) {
      if (i >= bound || (found >= 0 && i >= found)) break;
      this.guard.tick();
      const d = this.entries[i];
      if (!d.matched && !d.loaded && d.matcher!(expression)) {
        found = i;
        break;
      }
    }
    if (found >= 0) this.entries[found].matched = true;
    return found;
  }
}
