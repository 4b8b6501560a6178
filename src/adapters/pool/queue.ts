/**
 * The reviews waiting for a review worker, oldest first, each under its deadline: one that waits past it
 * leaves the queue and goes to `expired` (the pool answers it by failure policy without running it).
 *
 *   const waiting = new WaitingReviews<Job>((job) => answerUnrun(job));
 *   waiting.add([job]);              // arrived
 *   waiting.add(notStarted, true);   // taken back from a worker: they go first
 *   waiting.take(8);                 // the next batch for a free worker
 *   waiting.remove(job);             // its client left
 */

/** What the queue reads of a review. */
export interface Waiting {
  /** performance.now() when its deadline passes. */
  deadlineAt: number;
  setName: string;
  /** The version of its set it was read with. */
  generation: number;
}

export class WaitingReviews<T extends Waiting> {
  private items: T[] = [];
  /**
   * One timer for the whole queue, due at the earliest deadline it was last set for, not one per review
   * kept in a Map: a Map or Set gaining and losing an entry per request kept whole requests alive through
   * V8's young-generation collections (node-drain.ts; bench/README.md, "What stop 25 did").
   */
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerDueAt = Infinity;

  constructor(private readonly expired: (item: T) => void) {}

  get length(): number {
    return this.items.length;
  }

  /** Adds reviews at the end (or, taken back from a worker, at the front: they waited longest). */
  add(items: readonly T[], front = false): void {
    if (front) this.items.unshift(...items);
    else this.items.push(...items);
    const earliest = earliestDeadline(items);
    if (earliest < this.timerDueAt) this.setTimer(earliest);
  }

  /** Takes a review out of the queue; false if it was not there. */
  remove(item: T): boolean {
    const at = this.items.indexOf(item);
    if (at < 0) return false;
    this.items.splice(at, 1);
    this.stopTimerIfEmpty();
    return true;
  }

  /**
   * Up to `limit` reviews from the head, in order, of one version per set: a worker keeps only two
   * versions of a set, so a batch spanning more (reloads in quick succession) could find one of them
   * dropped by the time its review comes.
   */
  take(limit: number): T[] {
    const versions = new Map<string, number>();
    let count = 0;
    for (; count < limit && count < this.items.length; count++) {
      const { setName, generation } = this.items[count];
      const seen = versions.get(setName);
      if (seen === undefined) versions.set(setName, generation);
      else if (seen !== generation) break;
    }
    const taken = this.items.splice(0, count);
    this.stopTimerIfEmpty();
    return taken;
  }

  /** Empties the queue (the pool is closing). */
  clear(): T[] {
    const all = this.items.splice(0);
    this.stopTimerIfEmpty();
    return all;
  }

  private setTimer(dueAt: number): void {
    clearTimeout(this.timer);
    this.timerDueAt = dueAt;
    // Rounded up: fired early, the timer finds nothing due and is set again.
    this.timer = setTimeout(this.expire, Math.max(0, Math.ceil(dueAt - performance.now())));
  }

  private stopTimerIfEmpty(): void {
    if (this.items.length > 0 || this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDueAt = Infinity;
  }

  /** The timer is due: the reviews past their deadline leave, in order; it is set again for the rest. */
  private readonly expire = (): void => {
    this.timer = undefined;
    this.timerDueAt = Infinity;
    const now = performance.now();
    const due: T[] = [];
    const kept: T[] = [];
    for (const item of this.items) (item.deadlineAt <= now ? due : kept).push(item);
    this.items = kept;
    const earliest = earliestDeadline(kept);
    if (earliest < Infinity) this.setTimer(earliest);
    for (const item of due) this.expired(item);
  };
}

/** The earliest deadline of `items`; Infinity for none. */
function earliestDeadline(items: readonly Waiting[]): number {
  let earliest = Infinity;
  for (const item of items) earliest = Math.min(earliest, item.deadlineAt);
  return earliest;
}
