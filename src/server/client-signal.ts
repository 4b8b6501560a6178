/**
 * How a reviewer learns that the client of a review went away: the request's AbortSignal, or a lighter
 * signal its adapter offers instead. The Node server offers one because an AbortController made for every
 * request (and the listener a pool adds and removes on its signal) cost its main thread about 5.5 µs per
 * request on Node 20, against 0.3 µs on Node 24 (bench/JOURNAL.md, "What stop 26 did").
 */

/** What reviewers use of an AbortSignal; an AbortSignal is one. Its listeners run once, when it aborts. */
export interface ClientSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A request whose adapter tells, without an AbortSignal, when its client has gone away. */
export interface ClientSignalRequest {
  readonly clientSignal: ClientSignal;
}

/** The lighter signal of `request` when its adapter offers one, else its AbortSignal. */
export function clientSignalOf(request: Request): ClientSignal {
  return (request as Partial<ClientSignalRequest>).clientSignal ?? request.signal;
}

/**
 * A ClientSignal without an EventTarget: a flag and a list of listeners. As with an AbortSignal, a
 * listener is added once however often it is given, one added after the abort is never called, and one
 * that throws does not keep the others from running (its error is thrown again outside, as an
 * uncaught exception, which is what an EventTarget does with it).
 */
export class LightClientSignal implements ClientSignal {
  #aborted = false;
  #listeners: (() => void)[] | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  /** `once` changes nothing: a listener runs at most once, at the abort. */
  addEventListener(type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    if (type !== 'abort' || this.#aborted) return;
    this.#listeners ??= [];
    if (!this.#listeners.includes(listener)) this.#listeners.push(listener);
  }

  removeEventListener(type: 'abort', listener: () => void): void {
    if (type !== 'abort' || this.#listeners === undefined) return;
    const at = this.#listeners.indexOf(listener);
    if (at >= 0) this.#listeners.splice(at, 1);
  }

  /** Marks the client gone and calls each listener once. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listeners = this.#listeners ?? [];
    this.#listeners = undefined;
    for (const listener of listeners) {
      try {
        listener();
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }
}
