/**
 * When the review pool (pool.ts) runs a spare worker. One policy set's reviews, however long, may hold
 * every worker; a review of another set would then wait for one of them to end, up to their deadline, and
 * a cluster would fail closed for another's policies. So when every worker is busy and a review of a set
 * none of them is serving is still waiting `afterMs` later, one spare worker starts. It takes only the
 * reviews of sets no other worker is serving, and stops after `idleMs` without one. With one policy set
 * there is never a spare: a set waiting while every worker is busy is a set they serve.
 *
 *   const spare = new SpareTimers(SPARE_TIMING);
 *   spare.armStart(() => { const served = setsServed(...); return served && otherSetWaiting }, startSpare);
 *   spare.armStop(stopSpare);     // the spare is idle
 *   spare.keep();                 // the spare took reviews
 */

export interface SpareTiming {
  /** How long a review of a set no busy worker serves waits before the spare starts. */
  afterMs: number;
  /** How long the spare stays without a review before it stops. */
  idleMs: number;
}

export const SPARE_TIMING: SpareTiming = { afterMs: 250, idleMs: 10_000 };

/**
 * The policy sets the workers are serving when every one of them is busy: `running` names the set of each
 * worker's review in progress (undefined for a worker without one); undefined when a worker is free.
 */
export function setsServed(running: Iterable<string | undefined>): Set<string> | undefined {
  const served = new Set<string>();
  for (const setName of running) {
    if (setName === undefined) return undefined;
    served.add(setName);
  }
  return served.size > 0 ? served : undefined;
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
