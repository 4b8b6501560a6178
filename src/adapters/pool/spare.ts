/**
 * When the review pool (pool.ts) runs a spare worker, and what it may do. Reviews run to the end on their
 * worker: no review can be paused for another. So reviews waiting while every worker is busy wait for one
 * of those to end, up to their deadline, and would be answered by failure policy without running. A spare
 * worker starts when reviews still wait `afterMs` later and either
 *  - every worker is busy with other policy sets than one that waits (a cluster would fail closed for
 *    another's policies): the spare then takes only the sets no other worker serves; or
 *  - every worker has been on its review for `heldMs` or more (a few long reviews, hostile or not, would
 *    hold a set's every other review): the spare then takes any review waiting.
 * A review of a set the regular workers are serving that the spare has run for `heldMs` goes back to wait
 * for a regular worker (its evaluation has no effect until answered, so running it again is safe), so no
 * such review holds the spare for longer; after a review moved off, the next ones get half as long (a
 * burst of long reviews), and `heldMs` again once one ends in time (SpareLeash). Half, not less: a review
 * quick alone may take a hundred milliseconds on a spare sharing two cores with workers held by long ones,
 * and one moved off waits for those. The spare stops after `idleMs` without a review.
 *
 *   const spare = new SpareTimers(SPARE_TIMING);
 *   spare.armStart(delayMs, () => { if (stillNeeded) startSpare(); });
 *   spare.armStop(stopSpare);     // the spare is idle
 *   spare.keep();                 // the spare took reviews
 */

export interface SpareTiming {
  /** How long reviews wait, every worker busy, before the spare starts. */
  afterMs: number;
  /** A worker on one review this long is held by it; and the longest the spare runs a review of a busy set. */
  heldMs: number;
  /** How long the spare stays without a review before it stops. */
  idleMs: number;
}

export const SPARE_TIMING: SpareTiming = { afterMs: 250, heldMs: 500, idleMs: 10_000 };

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

  get startPending(): boolean {
    return this.starting !== undefined;
  }

  /** Unless a start is pending: `fire` runs `delayMs` from now (and decides then whether the spare starts). */
  armStart(delayMs: number, fire: () => void): void {
    if (this.starting !== undefined) return;
    this.starting = setTimeout(() => {
      this.starting = undefined;
      fire();
    }, delayMs);
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

/** How long the spare runs a review before moving it off (see the top of this file). */
export class SpareLeash {
  private ms: number;

  constructor(private readonly heldMs: number) {
    this.ms = heldMs;
  }

  get currentMs(): number {
    return this.ms;
  }

  /** A review ran out its time on the spare. */
  movedOff(): void {
    this.ms = this.heldMs / 2;
  }

  /** The spare ended a review in time. */
  ended(): void {
    this.ms = this.heldMs;
  }
}
