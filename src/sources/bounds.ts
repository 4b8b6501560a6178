/** Time and concurrency bounds shared by the sources (core: Web APIs only). */

/** Rejects with the signal's reason as soon as it aborts, even when `promise` ignores the signal. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Per parent signal: the signals that follow it, all aborted by one listener of the parent's. */
const followers = new WeakMap<AbortSignal, Set<AbortController>>();

/**
 * Runs `run` with a signal of its own that aborts when `parent` does. However many run at once, the parent
 * holds one listener: a refresh shares one signal between its sources and their concurrent reads, and
 * the SDKs add listeners of their own to the signal each call gets; on one shared signal those pass
 * Node's limit of ten and it warns of a leak that is none.
 */
export async function withOwnSignal<T>(parent: AbortSignal, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (parent.aborted) throw abortError(parent);
  let following = followers.get(parent);
  if (!following) {
    const set = new Set<AbortController>();
    parent.addEventListener('abort', () => {
      for (const own of set) own.abort(parent.reason);
      set.clear();
    }, { once: true });
    followers.set(parent, set);
    following = set;
  }
  const own = new AbortController();
  following.add(own);
  try {
    return await run(own.signal);
  } finally {
    following.delete(own);
  }
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new Error(typeof reason === 'string' ? reason : 'aborted');
}

/** A signal that aborts after `ms` or when `parent` aborts, with a message saying which. */
export function deadline(ms: number, what: string, parent?: AbortSignal): { signal: AbortSignal; done: () => void; notCounted: (ms: number) => void } {
  const controller = new AbortController();
  // Time the bound does not count (a refresh's parsing): when the timer fires, it waits that much longer.
  let notCounted = 0;
  const fire = () => {
    if (notCounted > 0) {
      timer = setTimeout(fire, notCounted);
      notCounted = 0;
    } else controller.abort(new Error(`${what} did not finish within ${ms} ms`));
  };
  let timer = setTimeout(fire, ms);
  const onParent = () => controller.abort(parent?.reason ?? new Error('stopped'));
  if (parent) {
    if (parent.aborted) onParent();
    else parent.addEventListener('abort', onParent, { once: true });
  }
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParent);
    },
    notCounted: (spent) => void (notCounted += spent),
  };
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results in input order; first error wins. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed: { error: unknown } | undefined;
  const worker = async () => {
    while (failed === undefined && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]);
      } catch (error) {
        failed ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failed) throw failed.error;
  return results;
}

/** The message of anything thrown, on one line (SDK errors may carry several). */
export function errorMessage(err: unknown): string {
  const message = err instanceof Error ? err.message || err.name : String(err);
  return message.split('\n')[0];
}
