/**
 * The requests in flight that a slow client holds, oldest first: those whose bodies are slow to arrive
 * (src/server/slow-body.ts), and those whose answer is written but not taken by the client (an HTTP/2
 * stream whose flow-control window the client never opens, a connection it does not read: its connection
 * hands next to nothing to the network for a second). The Node server ends them to make room when AMENDER_MAX_REQUESTS are in
 * flight or the body budget is short of room (replies are counted in it), and ends an answer still not
 * taken after the write timeout whatever the load: an HTTP/2 session that its client keeps alive (with
 * PINGs) is never idle, so nothing else would. Requests that arrive whole and are read at once cost an
 * entry in a linked list (and a reading of their socket's byte counts) while their answer is written, and
 * nothing more.
 *
 * The answers are a list linked through their entries, not a Map: a long-lived Map or Set that gains and
 * loses an entry per request keeps whole requests alive through V8's young-generation collections (a
 * table it has outgrown stays in the old generation with its keys until a full collection, and the
 * scavenger takes what it points to as live), so every scavenge under load copied and promoted megabytes
 * of finished requests (bench/JOURNAL.md, "Stop 48's run"). An entry taken out of the list lets go of everything.
 */
import type { Http2ServerRequest } from 'node:http2';
import { LinkedList, type Linked } from './linked-list.js';
import type { IncomingRequest } from './node-request.js';

/** RST_STREAM's CANCEL (RFC 9113 §7), without loading node:http2 for its constants. */
const NGHTTP2_CANCEL = 0x8;

/**
 * An answer whose connection has not moved (MOVING_BYTES) for this long is a stalled one, which may make
 * room. An API server reads its answer at once; a few MiB cross a slow link in well under a second.
 */
export const STALLED_ANSWER_MS = 1000;

/**
 * What a connection must hand to the network in STALLED_ANSWER_MS to count as moving: more than the
 * frames a stalled HTTP/2 stream still sends (its HEADERS, the session's PING acks), far less than the
 * slowest link an API server reads over.
 */
const MOVING_BYTES = 16 * 1024;

/** An answer written and not yet taken: an entry of SlowRequests' list, found from its request by ANSWERING. */
interface Answering extends Linked<Answering> {
  incoming: IncomingRequest | undefined;
  /** When it was written (performance.now()): the write timeout counts from here. */
  written: number;
  /** When its connection was last seen moving, and how many bytes it had written then. */
  checked: number;
  bytes: number;
}

/** Where a request carries its entry while it is listed (a property of its own: no table to look it up in). */
const ANSWERING = Symbol('amender.answering');
type ListedRequest = IncomingRequest & { [ANSWERING]?: Answering };

export class SlowRequests {
  /** Insertion-ordered: the first is the oldest. */
  #slowBodies = new Set<IncomingRequest>();
  /** Requests whose answer is written and not yet taken, the one whose connection moved longest ago first. */
  #answers = new LinkedList<Answering>();
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
    const listed = incoming as ListedRequest;
    if (listed[ANSWERING]) this.#unlist(listed[ANSWERING]);
    const now = performance.now();
    const entry: Answering = { incoming, written: now, checked: now, bytes: bytesWritten(incoming), previous: undefined, next: undefined, list: undefined };
    listed[ANSWERING] = entry;
    this.#answers.append(entry);
  }

  /** The request's response closed: written whole, or the connection or stream is gone. */
  closed(incoming: IncomingRequest): void {
    const entry = (incoming as ListedRequest)[ANSWERING];
    if (entry) this.#unlist(entry);
  }

  /**
   * Ends the oldest request a slow client holds: a slow body first, else a stalled answer (endStalledAnswer).
   * Its HTTP/1.1 connection is closed, its HTTP/2 stream reset. False when there is none.
   */
  endOldest(): boolean {
    const body = this.#slowBodies.values().next();
    if (!body.done) {
      this.#slowBodies.delete(body.value);
      end(body.value);
      return true;
    }
    return this.endStalledAnswer();
  }

  /**
   * Ends the request of the oldest answer whose connection has not moved for STALLED_ANSWER_MS (a
   * client reading its answer slowly, even a large one, is moving, and is left be); false when there is none.
   * The connection is the unit: an HTTP/2 stream whose connection carries others that move is not stalled.
   */
  endStalledAnswer(): boolean {
    const now = performance.now();
    // One that moved goes to the end, looked at now: reaching it ends the loop.
    for (let answer = this.#answers.first; answer; answer = this.#answers.first) {
      const incoming = answer.incoming!;
      if (now - answer.checked < STALLED_ANSWER_MS) return false;
      const bytes = bytesWritten(incoming);
      if (bytes - answer.bytes >= MOVING_BYTES) {
        // It moved: looked at again a second from now, behind the others.
        answer.checked = now;
        answer.bytes = bytes;
        this.#answers.append(answer);
        continue;
      }
      this.#unlist(answer);
      end(incoming);
      return true;
    }
    return false;
  }

  /** Stops the write timeout's sweeps (the server closed). */
  stop(): void {
    if (this.#sweeper !== undefined) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  /** Ends the answers written longer than the write timeout ago, moving or not. */
  #endTimedOut(): void {
    const cutoff = performance.now() - this.writeTimeoutMs;
    for (let answer = this.#answers.first; answer; ) {
      const next = answer.next;
      if (answer.written <= cutoff) {
        const incoming = answer.incoming!;
        this.#unlist(answer);
        end(incoming);
      }
      answer = next;
    }
  }

  /** Out of the list, holding nothing: an entry promoted before its request ended must not keep newer ones alive. */
  #unlist(entry: Answering): void {
    this.#answers.remove(entry);
    if (entry.incoming) (entry.incoming as ListedRequest)[ANSWERING] = undefined;
    entry.incoming = undefined;
  }
}

/**
 * Bytes the request's connection has handed to the network so far: a socket's `bytesWritten` counts what
 * waits in its buffer too, so that is taken off (an HTTP/2 session writes to its socket as the peer's
 * windows allow, so its count moves only then).
 */
function bytesWritten(incoming: IncomingRequest): number {
  const socket = incoming.httpVersionMajor === 2 ? (incoming as Http2ServerRequest).stream.session?.socket : incoming.socket;
  return socket ? socket.bytesWritten - socket.writableLength : 0;
}

function end(incoming: IncomingRequest): void {
  if (incoming.httpVersionMajor === 2) (incoming as Http2ServerRequest).stream.close(NGHTTP2_CANCEL);
  else incoming.socket.destroy();
}
