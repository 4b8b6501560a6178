/**
 * The requests in flight whose bodies are slow to arrive (src/server/slow-body.ts), oldest first: what the
 * Node server ends to make room when AMENDER_MAX_REQUESTS are in flight. Only slow requests are listed, so
 * requests that arrive whole cost nothing here.
 */

/** A request the server can end: its connection (HTTP/1.1) or stream (HTTP/2) is destroyed. */
export interface EndableRequest {
  end(): void;
}

export class SlowRequests {
  #list: EndableRequest[] = [];

  add(request: EndableRequest): void {
    this.#list.push(request);
  }

  /** A listed request that is answered, or whose body has arrived, is no longer one to end. */
  remove(request: EndableRequest): void {
    const at = this.#list.indexOf(request);
    if (at >= 0) this.#list.splice(at, 1);
  }

  /** Ends the oldest slow request; false when there is none. */
  endOldest(): boolean {
    const oldest = this.#list.shift();
    if (oldest === undefined) return false;
    oldest.end();
    return true;
  }
}
