/**
 * The requests in flight whose bodies are slow to arrive (src/server/slow-body.ts), oldest first: what the
 * Node server ends to make room when AMENDER_MAX_REQUESTS are in flight. Only slow requests are listed, so
 * requests that arrive whole cost nothing here; one leaves the list once its body is in or its
 * connection or stream is gone.
 */
import type { Http2ServerRequest } from 'node:http2';
import type { IncomingRequest } from './node-request.js';

/** RST_STREAM's CANCEL (RFC 9113 §7), without loading node:http2 for its constants. */
const NGHTTP2_CANCEL = 0x8;

export class SlowRequests {
  /** Insertion-ordered: the first is the oldest. */
  #listed = new Set<IncomingRequest>();

  /** Lists a request whose body is still arriving, until it is in (`end`) or the request is gone (`close`). */
  add(incoming: IncomingRequest): void {
    if (incoming.complete || this.#listed.has(incoming)) return;
    this.#listed.add(incoming);
    const unlist = () => this.#listed.delete(incoming);
    incoming.once('end', unlist);
    incoming.once('close', unlist);
  }

  /** Ends the oldest slow request (its HTTP/1.1 connection closed, its HTTP/2 stream reset); false when there is none. */
  endOldest(): boolean {
    const oldest = this.#listed.values().next();
    if (oldest.done) return false;
    const incoming = oldest.value;
    this.#listed.delete(incoming);
    if (incoming.httpVersionMajor === 2) (incoming as Http2ServerRequest).stream.close(NGHTTP2_CANCEL);
    else incoming.socket.destroy();
    return true;
  }
}
