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
  private readonly items: T[] = [];
  private readonly timers = new Map<T, ReturnType<typeof setTimeout>>();

  constructor(private readonly expired: (item: T) => void) {}

  get length(): number {
    return this.items.length;
  }

  /** Adds reviews at the end (or, taken back from a worker, at the front: they waited longest). */
  add(items: readonly T[], front = false): void {
    if (front) this.items.unshift(...items);
    else this.items.push(...items);
    for (const item of items) {
      this.timers.set(
        item,
        setTimeout(() => {
          if (this.remove(item)) this.expired(item);
        }, Math.max(0, item.deadlineAt - performance.now())),
      );
    }
  }

  /** Takes a review out of the queue; false if it was not there. */
  remove(item: T): boolean {
    const at = this.items.indexOf(item);
    if (at < 0) return false;
    this.items.splice(at, 1);
    this.stopTimer(item);
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
    for (const item of taken) this.stopTimer(item);
    return taken;
  }

  /** Empties the queue (the pool is closing). */
  clear(): T[] {
    const all = this.items.splice(0);
    for (const item of all) this.stopTimer(item);
    return all;
  }

  private stopTimer(item: T): void {
    clearTimeout(this.timers.get(item));
    this.timers.delete(item);
  }
}
