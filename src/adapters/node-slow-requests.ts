/**
 * The requests in flight that a slow client holds, oldest first: those whose bodies are slow to arrive
 * (src/server/slow-body.ts), and those whose answer is written but not taken by the client (an HTTP/2
 * stream whose flow-control window the client never opens, a connection it does not read). The Node
 * server ends them to make room when AMENDER_MAX_REQUESTS are in flight, and ends an answer still not
 * taken after the write timeout whatever the load: an HTTP/2 session that its client keeps alive (with
 * PINGs) is never idle, so nothing else would. Requests that arrive whole and are read at once cost a map
 * entry while their answer is written, and nothing more.
 */
import type { Http2ServerRequest } from 'node:http2';
import type { IncomingRequest } from './node-request.js';

/** RST_STREAM's CANCEL (RFC 9113 §7), without loading node:http2 for its constants. */
const NGHTTP2_CANCEL = 0x8;

/**
 * An answer not taken this long after it was written is a stalled one, which may make room at the cap.
 * An API server reads its answer at once; a few MiB cross a slow link in well under a second.
 */
export const STALLED_ANSWER_MS = 1000;

export class SlowRequests {
  /** Insertion-ordered: the first is the oldest. */
  #slowBodies = new Set<IncomingRequest>();
  /** Requests whose answer is written and not yet taken, with when it was written (performance.now()); oldest first. */
  #answering = new Map<IncomingRequest, number>();
  #sweeper: ReturnType<typeof setInterval> | undefined;

  /**
   * `writeTimeoutMs`: the longest an answer may wait for its client to take it before the request is
   * ended (AMENDER_REQUEST_TIMEOUT_MS); Infinity for none.
   */
  constructor(private readonly writeTimeoutMs = Infinity) {
    if (Number.isFinite(writeTimeoutMs)) {
      // One sweep a second at most, doing nothing while every answer is taken at once.
      this.#sweeper = setInterval(() => this.#endTimedOut(), Math.min(1000, writeTimeoutMs));
      this.#sweeper.unref();
    }
  }

  /** Lists a request whose body is still arriving, until it is in (`end`) or the request is gone (`close`). */
  add(incoming: IncomingRequest): void {
    if (incoming.complete || this.#slowBodies.has(incoming)) return;
    this.#slowBodies.add(incoming);
    const unlist = () => this.#slowBodies.delete(incoming);
    incoming.once('end', unlist);
    incoming.once('close', unlist);
  }

  /** The request's answer was handed to its connection; `closed` is to be called when its response closes. */
  answered(incoming: IncomingRequest): void {
    this.#answering.set(incoming, performance.now());
  }

  /** The request's response closed: written whole, or the connection or stream is gone. */
  closed(incoming: IncomingRequest): void {
    this.#answering.delete(incoming);
  }

  /**
   * Ends the oldest request a slow client holds: a slow body first, else an answer not taken for
   * STALLED_ANSWER_MS. Its HTTP/1.1 connection is closed, its HTTP/2 stream reset. False when there is none.
   */
  endOldest(): boolean {
    const body = this.#slowBodies.values().next();
    if (!body.done) {
      this.#slowBodies.delete(body.value);
      end(body.value);
      return true;
    }
    const answer = this.#answering.entries().next();
    if (answer.done || performance.now() - answer.value[1] < STALLED_ANSWER_MS) return false;
    this.#answering.delete(answer.value[0]);
    end(answer.value[0]);
    return true;
  }

  /** Stops the write timeout's sweeps (the server closed). */
  stop(): void {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  /** Ends the answers written longer than the write timeout ago: the map is oldest first. */
  #endTimedOut(): void {
    const cutoff = performance.now() - this.writeTimeoutMs;
    for (const [incoming, since] of this.#answering) {
      if (since > cutoff) break;
      this.#answering.delete(incoming);
      end(incoming);
    }
  }
}

function end(incoming: IncomingRequest): void {
  if (incoming.httpVersionMajor === 2) (incoming as Http2ServerRequest).stream.close(NGHTTP2_CANCEL);
  else incoming.socket.destroy();
}
