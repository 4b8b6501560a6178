/**
 * How many bytes of request bodies a server holds at once: bodies being read, waiting for a review worker
 * or under review, and where the adapter can tell when a reply is written, replies being written. A
 * request takes its body's bytes before reading it and gives them back once its reply is out (or at once
 * when answered, where the adapter cannot tell); when they would pass the budget it waits, unread (the
 * connection's flow control holds the rest of its body with the client), first come first served, until
 * earlier ones are done.
 *
 *   const budget = new BodyBudget(32 * 2 ** 20);
 *   if (budget.tryTake(n) || (await budget.take(n, waitMs, signal)) === 'taken') { ...; budget.give(n); }
 *
 * Without it, a burst of large reviews (the API server allows objects of 3 MiB, and an UPDATE carries two)
 * is read whole at once, whatever the review workers can take: in a 512 MiB container, 16 reviews of 6 MiB
 * sent together had the kernel kill the process, and every review in it with the process (README,
 * "Isolation"). A body larger than the whole budget is still taken, alone, when nothing else is held.
 *
 * At most `maxWaiting` requests wait; one more is refused at once. A request waiting, unread, still costs
 * what its connection delivered before flow control stopped it: up to its stream's 64 KiB window over
 * HTTP/2, where one connection carries up to 250 streams. Measured on the Node server, 960 streams waiting
 * on 4 connections held ~100 MB; without a bound, a client with a few dozen connections would hold more
 * than the budget saves. The Node server gathers what a waiting body receives in small pieces (DATA frames
 * of one byte) into blocks, so that what it holds is its bytes, not a Buffer per piece
 * (src/adapters/node-unread-body.ts).
 */
import type { ClientSignal } from './client-signal.js';
import { CallbackCounter, CallbackGauge, type Registry } from '../observe/index.js';

/** How many requests wait for room at most (each may hold its stream's 64 KiB window: 16 MiB in all). */
export const MAX_WAITING = 256;

/**
 * A body of at most this many bytes is a small one (an ordinary review is a few KiB), for which a quarter
 * of the budget is kept: larger bodies take at most the rest. Bodies are taken before they arrive (their
 * Content-Length), so clients that declare large bodies and send them slowly, or never, would otherwise
 * hold the whole budget for the second before theirs stop counting (routes/body-in-budget.ts), and the API
 * server's small reviews would wait behind them.
 */
export const SMALL_BODY_BYTES = 64 * 1024;

/** How often room is asked for again while requests wait (relieveWith). */
const RELIEF_INTERVAL_MS = 500;

/** What became of a request that asked for room: it has it, or it waited as long as it could, or there were already `maxWaiting` before it, or its client left. */
export type TakeOutcome = 'taken' | 'timed-out' | 'too-many-waiting' | 'client-gone';

interface Waiter {
  bytes: number;
  grant: () => void;
}

export class BodyBudget {
  private held = 0;
  private readonly waiters: Waiter[] = [];
  private refusedCount = 0;
  /** Asked to free room while requests wait for it (relieveWith), and the timer that asks again. */
  private relieve: (() => unknown) | undefined;
  private reliefTimer: ReturnType<typeof setInterval> | undefined;
  /** Small bodies: at most SMALL_BODY_BYTES, and a sixteenth of a small budget. */
  private readonly smallBytes: number;
  /** What larger bodies may hold together: the budget less the quarter kept for small ones. */
  private readonly largeLimitBytes: number;

  constructor(
    readonly limitBytes: number,
    readonly maxWaiting = MAX_WAITING,
  ) {
    if (!Number.isSafeInteger(limitBytes) || limitBytes <= 0) throw new RangeError(`a body budget must be a positive number of bytes, got ${limitBytes}`);
    if (!Number.isSafeInteger(maxWaiting) || maxWaiting < 0) throw new RangeError(`the requests waiting for a body budget must be a whole number, got ${maxWaiting}`);
    this.smallBytes = Math.min(SMALL_BODY_BYTES, Math.floor(limitBytes / 16));
    this.largeLimitBytes = limitBytes - Math.floor(limitBytes / 4);
  }

  /** Bytes held now. */
  get heldBytes(): number {
    return this.held;
  }

  /** Requests waiting for room now. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Requests refused: they waited as long as they could, or too many waited already. */
  get refused(): number {
    return this.refusedCount;
  }

  /**
   * Takes `bytes` now when they fit and no request waits before this one (for a small body: no other
   * small one); false otherwise (nothing taken).
   */
  tryTake(bytes: number): boolean {
    if (!this.fits(bytes) || (this.waiters.length > 0 && (bytes > this.smallBytes || this.waiters.some((w) => w.bytes <= this.smallBytes)))) return false;
    this.held += bytes;
    return true;
  }

  /**
   * Waits its turn for `bytes`: 'taken' once they are; with nothing taken, 'timed-out' when `timeoutMs`
   * passes first, 'too-many-waiting' at once when `maxWaiting` requests wait already (both counted as
   * refused), 'client-gone' when the client goes away.
   */
  take(bytes: number, timeoutMs: number, signal?: ClientSignal): Promise<TakeOutcome> {
    if (this.tryTake(bytes)) return Promise.resolve('taken');
    if (signal?.aborted) return Promise.resolve('client-gone');
    // Room held by a reply its client does not take can be freed (the adapter ends that request; its bytes come back through give).
    this.askForRelief();
    if (this.waiters.length >= this.maxWaiting) {
      this.refusedCount++;
      return Promise.resolve('too-many-waiting');
    }
    return new Promise<TakeOutcome>((resolve) => {
      const settle = (outcome: TakeOutcome): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const waiter: Waiter = { bytes, grant: () => settle('taken') };
      const leave = (): void => {
        const at = this.waiters.indexOf(waiter);
        if (at < 0) return;
        this.waiters.splice(at, 1);
        // The one that left may have been what held those behind it.
        if (at === 0) this.grantWaiting();
      };
      const onAbort = (): void => {
        leave();
        settle('client-gone');
      };
      const timer = setTimeout(() => {
        this.refusedCount++;
        leave();
        settle('timed-out');
      }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /**
   * `relieve` is called each time a request must wait for room: the adapter may end a request that holds
   * room and goes nowhere (a reply its client does not take), whose bytes then come back through give().
   */
  relieveWith(relieve: () => unknown): void {
    this.relieve = relieve;
  }

  /** Asks now, and again every RELIEF_INTERVAL_MS while requests wait (a reply is judged stalled only after a while). */
  private askForRelief(): void {
    const relieve = this.relieve;
    if (!relieve) return;
    relieve();
    if (this.reliefTimer !== undefined) return;
    this.reliefTimer = setInterval(() => {
      if (this.waiters.length === 0) {
        clearInterval(this.reliefTimer);
        this.reliefTimer = undefined;
        return;
      }
      relieve();
    }, RELIEF_INTERVAL_MS);
    // A timer of Node has unref; workerd's is a number.
    (this.reliefTimer as { unref?: () => void }).unref?.();
  }

  /**
   * Counts bytes already in memory, without waiting: a body read after it stopped being counted (a slow
   * one, routes/body-in-budget.ts), or a reply larger than its review's body while it is written.
   */
  hold(bytes: number): void {
    this.held += bytes;
  }

  /** Gives back bytes taken (all, or what a body read turned out not to need); the requests waiting that now fit take theirs. */
  give(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
    this.grantWaiting();
  }

  /**
   * Within the budget (a large body: within its share), or alone: a body larger than that must still be
   * served one at a time.
   */
  private fits(bytes: number): boolean {
    return this.held === 0 || this.held + bytes <= (bytes <= this.smallBytes ? this.limitBytes : this.largeLimitBytes);
  }

  /**
   * First come first served, except that small bodies pass large ones that do not fit: the room kept for
   * small bodies is theirs. A large body that does not fit holds the large ones behind it; a small one
   * that does not fit, everyone (nothing smaller comes after it).
   */
  private grantWaiting(): void {
    let largeBlocked = false;
    for (let i = 0; i < this.waiters.length; ) {
      const next = this.waiters[i];
      const small = next.bytes <= this.smallBytes;
      if ((small || !largeBlocked) && this.fits(next.bytes)) {
        this.waiters.splice(i, 1);
        this.held += next.bytes;
        next.grant();
        continue;
      }
      if (small) return;
      largeBlocked = true;
      i++;
    }
  }
}

/** amender_request_body_bytes_held, amender_request_body_budget_bytes, amender_requests_waiting_for_body_budget, amender_requests_refused_body_budget_total. */
export function registerBodyBudgetMetrics(registry: Registry, budget: BodyBudget): void {
  registry.register(new CallbackGauge('amender_request_body_bytes_held', 'Bytes of request bodies held (being read, waiting for a review or under review) and of replies being written.', () => [[{}, budget.heldBytes]]));
  registry.register(new CallbackGauge('amender_request_body_budget_bytes', 'The most bytes of request bodies held at once (AMENDER_BODY_BUDGET_MB).', () => [[{}, budget.limitBytes]]));
  registry.register(new CallbackGauge('amender_requests_waiting_for_body_budget', 'Requests waiting, unread, for room in the body budget.', () => [[{}, budget.waiting]]));
  registry.register(new CallbackCounter('amender_requests_refused_body_budget_total', 'Requests answered 503 because they waited for room in the body budget as long as their review could have run, or too many waited already.', () => [[{}, budget.refused]]));
}
