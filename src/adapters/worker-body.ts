/**
 * workerd resets the connection of a request whose body has not been read to its end when the Worker
 * returns its answer, so a client still sending sees the reset instead of the answer: a review over the
 * size limit (refused by its Content-Length before any of it is read, or cut off at the limit while
 * streamed), or one refused for its Content-Type. Node's server discards such a rest itself. Here the
 * rest is read and dropped before the answer is returned, for at most the body timeout; a body read
 * whole (every review within the limit) costs nothing more.
 */

/** The request to hand the app, and what to await before returning its answer. */
export interface DrainedRequest {
  request: Request;
  /** Reads what the app left of the body, dropping it, for at most `ms`. */
  drain(): Promise<void>;
}

const NOTHING: () => Promise<void> = () => Promise.resolve();

/**
 * Reads `reader` to its end, dropping the chunks, once `pending` (a read already started on it) has
 * settled; cancels it when `ms` pass first.
 */
async function discard(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number, pending: Promise<unknown> = Promise.resolve()): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    let chunk = await Promise.race([pending.then(() => ({ done: false })), timedOut]);
    while (chunk !== 'timeout' && !chunk.done) chunk = await Promise.race([reader.read(), timedOut]);
    if (chunk === 'timeout') await reader.cancel().catch(() => {});
  } catch {
    // the client went away: nothing left to read
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `request` as the app gets it. A body of declared length is read whole by the app or not at all, so the
 * same request serves; a streamed body (no Content-Length) is passed through a stream whose cancel, which
 * the app calls at the size limit, keeps reading to the end instead.
 */
export function drainingRequest(request: Request, ms: number): DrainedRequest {
  const source = request.body;
  if (source === null) return { request, drain: NOTHING };
  if (request.headers.has('content-length')) {
    return { request, drain: () => (request.bodyUsed ? Promise.resolve() : discard(source.getReader(), ms)) };
  }
  const reader = source.getReader();
  // workerd's streams allow one pending read: the drain waits for the one a pull may have started.
  let reading: Promise<unknown> = Promise.resolve();
  let rest: Promise<void> | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const read = reader.read();
        reading = read.catch(() => {});
        const chunk = await read;
        if (rest !== undefined) return; // cancelled meanwhile: the drain drops the rest
        if (chunk.done) controller.close();
        else controller.enqueue(chunk.value);
      },
      cancel() {
        rest = discard(reader, ms, reading);
      },
    },
    { highWaterMark: 0 }, // read only when the app reads: nothing is read ahead of a cancel
  );
  // `duplex` is what a stream body asks of Node's Request (the handler's tests); workerd accepts it.
  const passed = new Request(request, { body, duplex: 'half' } as RequestInit);
  return { request: passed, drain: () => rest ?? discard(reader, ms, reading) };
}
