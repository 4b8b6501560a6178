/**
 * When the review pool (pool.ts) runs a spare worker. One policy set's reviews, however long, may hold
 * every worker; a review of another set would then wait for one of them to end, up to their deadline, and
 * a cluster would fail closed for another's policies. So when every worker is running reviews of one set
 * and a review of another set is still waiting `afterMs` later, one spare worker starts, takes only the
 * other sets' reviews, and stops after `idleMs` without one. With one policy set there is never a spare.
 *
 *   const spare = new SpareTimers(SPARE_TIMING);
 *   spare.armStart(() => holderOf(...) !== undefined && otherSetWaiting, startSpare);
 *   spare.armStop(stopSpare);     // the spare is idle
 *   spare.keep();                 // the spare took reviews
 */

export interface SpareTiming {
  /** How long a review waits behind another set holding every worker before the spare starts. */
  afterMs: number;
  /** How long the spare stays without a review before it stops. */
  idleMs: number;
}

export const SPARE_TIMING: SpareTiming = { afterMs: 250, idleMs: 10_000 };

/**
 * The policy set whose reviews every worker is running, if one is: `running` names the set of each worker's
 * review in progress (undefined for a worker without one, or not serving).
 */
export function setHoldingEvery(running: Iterable<string | undefined>): string | undefined {
  let holder: string | undefined;
  for (const setName of running) {
    if (setName === undefined || (holder !== undefined && setName !== holder)) return undefined;
    holder = setName;
  }
  return holder;
}

/** The spare's start and stop timers (one spare at a time). Neither keeps the process alive. */
export class SpareTimers {
  private starting: ReturnType<typeof setTimeout> | undefined;
  private stopping: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly timing: SpareTiming) {}

  /** Unless a start is pending: `start` runs `afterMs` from now if `needed()` holds now and then. */
  armStart(needed: () => boolean, start: () => void): void {
    if (this.starting !== undefined || !needed()) return;
    this.starting = setTimeout(() => {
      this.starting = undefined;
      if (needed()) start();
    }, this.timing.afterMs);
    this.starting.unref();
  }

  /** The spare has no review: `stop` runs `idleMs` from now unless it takes one first (keep). */
  armStop(stop: () => void): void {
    this.keep();
    this.stopping = setTimeout(() => {
      this.stopping = undefined;
      stop();
    }, this.timing.idleMs);
    this.stopping.unref();
  }

  /** The spare took reviews (or is gone): no stop pending. */
  keep(): void {
    clearTimeout(this.stopping);
    this.stopping = undefined;
  }

  close(): void {
    clearTimeout(this.starting);
    this.starting = undefined;
    this.keep();
  }
}
