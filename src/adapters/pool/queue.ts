/**
 * The reviews waiting for a review worker, in one lane per policy set (the default set, or a cluster's),
 * each lane oldest first, each review under its deadline: one that waits past it leaves the queue and goes
 * to `expired` (the pool answers it by failure policy without running it).
 *
 *   const waiting = new WaitingReviews<Job>((job) => answerUnrun(job));
 *   waiting.add([job]);              // arrived
 *   waiting.add(notStarted, true);   // taken back from a worker: they go first
 *   waiting.take(8);                 // the next batch for a free worker
 *   waiting.take(8, busySets);       // the same without those sets' reviews (a spare worker's)
 *   waiting.take(8, none, 1 << 20);  // the same, at most 1 MiB of bodies (one larger review goes alone)
 *   waiting.remove(job);             // its client left
 *   waiting.shedFor(setName);        // full: the newest review of the longest lane makes room, if any
 *
 * The lanes are served in turn, one review each, so that one cluster flooding a shared server delays
 * another cluster's review by a turn, not by its whole backlog; and when the queue is full, a review
 * of a set with fewer waiting takes the place of the newest review of the set with the most
 * (`shedFor`), so a flood fills the queue with its own reviews only up to the others' share. With one
 * policy set (a server without clusters) this is one first-in, first-out queue.
 */

/** What the queue reads of a review. */
export interface Waiting {
  /** performance.now() when its deadline passes. */
  deadlineAt: number;
  setName: string;
  /** The version of its set it was read with. */
  generation: number;
  /** The size of its body (bytes, or UTF-16 units of a body held as text): what a batch's byte bound counts. */
  bodySize?: number;
}

/**
 * The reviews of one policy set; in the ring of lanes served exactly while it has some. Kept once made:
 * the sets are the server's configured ones, a few.
 */
interface Lane<T> {
  items: T[];
  /** While `take` makes a batch: the version of this set the batch holds. */
  batchGeneration: number | undefined;
}

export class WaitingReviews<T extends Waiting> {
  private readonly lanes = new Map<string, Lane<T>>();
  /** The lanes with reviews waiting, in the order they are served; `turn` is the next. */
  private ring: Lane<T>[] = [];
  private turn = 0;
  private count = 0;
  /**
   * One timer for the whole queue, due at the earliest deadline it was last set for, not one per review
   * kept in a Map: a Map or Set gaining and losing an entry per request kept whole requests alive through
   * V8's young-generation collections (node-drain.ts; bench/JOURNAL.md, "What stop 25 did").
   */
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerDueAt = Infinity;

  constructor(private readonly expired: (item: T) => void) {}

  get length(): number {
    return this.count;
  }

  /**
   * Adds reviews at the end of their lanes, a lane that had none joining the end of the turn; or, taken
   * back from a worker, at the front of their lanes (their order kept), served next: they waited longest.
   */
  add(items: readonly T[], front = false): void {
    if (front) {
      for (let i = items.length - 1; i >= 0; i--) this.enter(items[i], true);
    } else {
      for (const item of items) this.enter(item, false);
    }
    const earliest = earliestDeadline(items);
    if (earliest < this.timerDueAt) this.setTimer(earliest);
  }

  /** Takes a review out of the queue; false if it was not there. */
  remove(item: T): boolean {
    const lane = this.lanes.get(item.setName);
    const at = lane ? lane.items.indexOf(item) : -1;
    if (!lane || at < 0) return false;
    lane.items.splice(at, 1);
    this.left(lane, 1);
    return true;
  }

  /**
   * Up to `limit` reviews (none of the sets `except` names), one from each lane in turn, each lane's in order
   * and of one version of its set: a worker keeps only two versions of a set, so a batch spanning more
   * (reloads in quick succession) could find one of them dropped by the time its review comes. Their
   * bodies add up to at most `maxSize` unless the first alone is larger: a batch's bodies are all in its
   * worker's memory (outside its heap limit) until the batch ends, and a worker that takes back the reviews
   * of a batch running long holds them a second time.
   */
  take(limit: number, except?: ReadonlySet<string>, maxSize = Infinity): T[] {
    const taken: T[] = [];
    let size = 0;
    const inBatch: Lane<T>[] = [];
    // Lanes passed over in a row (their next review is of another version than the batch holds, or of
    // a set `except` names).
    let passed = 0;
    while (taken.length < limit && this.ring.length > passed) {
      if (this.turn >= this.ring.length) this.turn = 0;
      const lane = this.ring[this.turn];
      const next = lane.items[0];
      if (except?.has(next.setName)) {
        this.turn++;
        passed++;
        continue;
      }
      if (lane.batchGeneration === undefined) {
        lane.batchGeneration = next.generation;
        inBatch.push(lane);
      } else if (next.generation !== lane.batchGeneration) {
        this.turn++;
        passed++;
        continue;
      }
      const nextSize = next.bodySize ?? 0;
      if (taken.length > 0 && size + nextSize > maxSize) break;
      size += nextSize;
      taken.push(lane.items.shift()!);
      passed = 0;
      // A lane emptied leaves the ring, and `turn` then stands on the lane after it.
      if (lane.items.length > 0) this.turn++;
      this.left(lane, 1);
    }
    for (const lane of inBatch) lane.batchGeneration = undefined;
    return taken;
  }

  /**
   * Room for a review of `setName` in a full queue: takes out and returns the newest review of the set
   * with the most waiting, when that set has more waiting than `setName` would with its review. Undefined
   * when `setName` has the most (or as many): its new review is the one to refuse.
   */
  shedFor(setName: string): T | undefined {
    const own = (this.lanes.get(setName)?.items.length ?? 0) + 1;
    let longest: Lane<T> | undefined;
    for (const lane of this.ring) if (!longest || lane.items.length > longest.items.length) longest = lane;
    if (!longest || longest.items.length <= own) return undefined;
    const shed = longest.items.pop()!;
    this.left(longest, 1);
    return shed;
  }

  /** Whether reviews of a set not among `sets` are waiting. */
  waitingBesides(sets: ReadonlySet<string>): boolean {
    return this.ring.some((lane) => !sets.has(lane.items[0].setName));
  }

  /** How many reviews of `setName` are waiting. */
  waiting(setName: string): number {
    return this.lanes.get(setName)?.items.length ?? 0;
  }

  /** Empties the queue (the pool is closing). */
  clear(): T[] {
    const all: T[] = [];
    for (const lane of this.ring) {
      all.push(...lane.items);
      lane.items = [];
    }
    this.ring = [];
    this.turn = 0;
    this.count = 0;
    this.stopTimerIfEmpty();
    return all;
  }

  private enter(item: T, front: boolean): void {
    let lane = this.lanes.get(item.setName);
    if (!lane) this.lanes.set(item.setName, (lane = { items: [], batchGeneration: undefined }));
    const joins = lane.items.length === 0;
    if (front) lane.items.unshift(item);
    else lane.items.push(item);
    this.count++;
    if (!joins) return;
    // Before the lane served next: served next (front), or last in this turn (the turn moves past it).
    if (this.turn > this.ring.length) this.turn = 0;
    this.ring.splice(this.turn, 0, lane);
    if (!front) this.turn++;
  }

  /** `n` reviews have left `lane`: an empty lane leaves the ring; an empty queue needs no timer. */
  private left(lane: Lane<T>, n: number): void {
    this.count -= n;
    if (lane.items.length === 0) {
      const at = this.ring.indexOf(lane);
      this.ring.splice(at, 1);
      if (at < this.turn) this.turn--;
    }
    this.stopTimerIfEmpty();
  }

  private setTimer(dueAt: number): void {
    clearTimeout(this.timer);
    this.timerDueAt = dueAt;
    // Rounded up: fired early, the timer finds nothing due and is set again.
    this.timer = setTimeout(this.expire, Math.max(0, Math.ceil(dueAt - performance.now())));
  }

  private stopTimerIfEmpty(): void {
    if (this.count > 0 || this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDueAt = Infinity;
  }

  /** The timer is due: the reviews past their deadline leave, earliest deadline first; it is set again for the rest. */
  private readonly expire = (): void => {
    this.timer = undefined;
    this.timerDueAt = Infinity;
    const now = performance.now();
    const due: T[] = [];
    let earliest = Infinity;
    for (const lane of [...this.ring]) {
      const kept: T[] = [];
      for (const item of lane.items) {
        if (item.deadlineAt <= now) due.push(item);
        else {
          kept.push(item);
          earliest = Math.min(earliest, item.deadlineAt);
        }
      }
      const gone = lane.items.length - kept.length;
      lane.items = kept;
      if (gone > 0) this.left(lane, gone);
    }
    if (earliest < Infinity) this.setTimer(earliest);
    due.sort((a, b) => a.deadlineAt - b.deadlineAt);
    for (const item of due) this.expired(item);
  };
}

/** The earliest deadline of `items`; Infinity for none. */
function earliestDeadline(items: readonly Waiting[]): number {
  let earliest = Infinity;
  for (const item of items) earliest = Math.min(earliest, item.deadlineAt);
  return earliest;
}
