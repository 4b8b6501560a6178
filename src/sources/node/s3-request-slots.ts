/**
 * The queue in front of a shared S3 client: how many of its requests run at once, and in which order the
 * others get their turn.
 */
import type { S3Client } from '@aws-sdk/client-s3';

/**
 * S3 requests one client runs at once, over every source (every cluster) sharing it: fewer than the
 * sockets of its pool (S3_SOCKETS), so a request that runs always has a socket. Beyond it, a request
 * waits in Amender's queue (requestSlot), where the SDK's timers have not started: the SDK starts its
 * 3 s connectionTimeout and 10 s requestTimeout when a request is made, not when it gets a socket, so
 * requests queued in its socket pool behind a slow but working store timed out although each one, once
 * sent, was answered in time. The wait itself ends at the refresh's deadline (its signal).
 * Measured (test/sources/s3-shared-pool.test.ts: 60 sets of 10 objects at once, s3rver answering each
 * request 500 ms late): loaded in 14.1 s with 40 in flight, 11.6 s with 48, 10.0 s with 64, 9.1 s with 96;
 * without the bound, 25 of the 60 sets failed. With 8 objects each and the refresh bound cut to 5 s, 19
 * of the 60 sets loaded; served first come, first served instead of by ticket, none did.
 */
export const S3_REQUESTS_IN_FLIGHT = 64;
interface Waiter {
  ticket: number;
  start: () => void;
  onAbort: () => void;
}

/**
 * A counting semaphore whose queue serves the lowest ticket first (first come, first served within a
 * ticket). A source's reads in one refresh share a ticket taken when that read began, so the refresh that
 * began first goes first: every refresh has the same deadline (30 s), and when the store cannot serve
 * them all within it, the sets load one after another (the others fail, keep their last good set and are
 * read again) instead of all progressing together and all failing at the deadline.
 */
class Slots {
  private running = 0;
  private readonly queue: Waiter[] = [];
  constructor(readonly limit: number) {}

  acquire(signal: AbortSignal, ticket: number): Promise<() => void> {
    if (signal.aborted) return Promise.reject(abortReason(signal));
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        ticket,
        start: () => {
          signal.removeEventListener('abort', waiter.onAbort);
          resolve(this.releaser());
        },
        onAbort: () => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          reject(abortReason(signal));
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      let at = this.queue.length;
      while (at > 0 && this.queue[at - 1].ticket > ticket) at--;
      this.queue.splice(at, 0, waiter);
    });
  }

  /** Requests running and waiting (tests, diagnostics). */
  get state(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.queue.length };
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next.start(); // the slot passes on: running stays the same
      else this.running--;
    };
  }
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(typeof reason === 'string' ? reason : 'aborted');
}

const slotsOf = new WeakMap<S3Client, Slots>();

function slots(client: S3Client): Slots {
  let found = slotsOf.get(client);
  if (!found) slotsOf.set(client, (found = new Slots(S3_REQUESTS_IN_FLIGHT)));
  return found;
}

let tickets = 0;

/** A new ticket for requestSlot: later than every ticket taken before. */
export function requestTicket(): number {
  return ++tickets;
}

/**
 * Waits for one of `client`'s S3_REQUESTS_IN_FLIGHT slots (lowest ticket first, then first come, first
 * served), or rejects with the signal's reason when it aborts first; resolves to the function that gives
 * the slot back (call it once the answer, body included, is read or dropped: the socket is busy until
 * then).
 */
export function requestSlot(client: S3Client, signal: AbortSignal, ticket = requestTicket()): Promise<() => void> {
  return slots(client).acquire(signal, ticket);
}

/** Requests of `client` running and waiting for a slot (tests). */
export function requestSlotState(client: S3Client): { running: number; waiting: number } {
  return slots(client).state;
}
