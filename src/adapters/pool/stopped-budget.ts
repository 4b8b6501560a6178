/**
 * How much of the main thread the answers to stopped reviews may take. Such an answer (stopped.ts) parses
 * the whole body on the main thread, at 40–130 ms per MiB alone (a Pod of many labels, built server and
 * from source) and up to 250 ms per MiB beside busy workers on two cores (a 2.9 MiB body took 730 ms), so a
 * burst of large reviews waiting past their deadline (24 of 7.9 MB, or 40 of 3 MiB) held the main thread,
 * and with it /healthz and every other client, for 10–26 s.
 *
 *   const budget = new StoppedBudget(STOPPED_BUDGET);
 *   if (size <= timing.smallBytes || budget.admits(size, now)) { ...answer in full...; budget.spend(ms, now); }
 *   else { ...answer 503 at once... }
 *
 * A body of at most `smallBytes` (an ordinary review is a few KiB) is always answered in full, as before;
 * its time counts against the budget all the same. A larger one is answered in full only while its
 * estimated time (`msPerMiB`) fits in the milliseconds saved up: `msPerSecond` of them a second, at most
 * `burstMs`. What an answer really took is spent, so a body slower than estimated leaves the budget in
 * debt, paid back over time.
 */

export interface StoppedBudgetTiming {
  /** Bodies up to this many bytes (UTF-16 units of a body held as text) are always answered in full. */
  smallBytes: number;
  /** Main-thread milliseconds a second that answering larger bodies in full may take. */
  msPerSecond: number;
  /** The most milliseconds saved up (also the budget at the start). */
  burstMs: number;
  /** The estimated main-thread milliseconds of answering one MiB of body. */
  msPerMiB: number;
}

/**
 * 10% of the main thread, 300 ms at once, estimated at the slowest measured (250 ms per MiB): bodies up to
 * about 1.2 MiB may still be answered in full, and none holds /healthz much longer than 300 ms.
 */
export const STOPPED_BUDGET: StoppedBudgetTiming = { smallBytes: 64 * 1024, msPerSecond: 100, burstMs: 300, msPerMiB: 250 };

export class StoppedBudget {
  private saved: number;
  private at: number;

  constructor(
    private readonly timing: StoppedBudgetTiming,
    now = performance.now(),
  ) {
    this.saved = timing.burstMs;
    this.at = now;
  }

  /** Whether a body of `size` is small: always answered in full. */
  isSmall(size: number): boolean {
    return size <= this.timing.smallBytes;
  }

  /** Whether a body of `size` is small, or its estimated time fits in the budget now. */
  admits(size: number, now = performance.now()): boolean {
    if (this.isSmall(size)) return true;
    this.refill(now);
    return (size / 2 ** 20) * this.timing.msPerMiB <= this.saved;
  }

  /** An answer took `ms` of the main thread. */
  spend(ms: number, now = performance.now()): void {
    this.refill(now);
    this.saved -= ms;
  }

  private refill(now: number): void {
    const elapsed = Math.max(0, now - this.at);
    this.at = Math.max(this.at, now);
    this.saved = Math.min(this.timing.burstMs, this.saved + (elapsed * this.timing.msPerSecond) / 1000);
  }
}
