/**
 * Log lines of the Node server, buffered: a write to a pipe (a container's log) is a synchronous system
 * call on Linux, and one per request cost about a tenth of a review's CPU. Lines are kept in memory and
 * written together when `intervalMs` has passed since the first one waiting, when `maxBytes` are waiting,
 * or when `flush()` is called — the server calls it once its policy sets have first loaded (so that the
 * start's lines appear when it is ready), when its drain starts and when the process exits (process.exit,
 * the end of the event loop, a fatal error), so no line is lost at SIGTERM. A process
 * killed outright (SIGKILL, out of memory) loses at most the last interval's lines.
 */

export interface LineBuffer {
  /** Keeps one line (its newline included) for the next write. */
  write(line: string): void;
  /** Writes every line waiting, now. */
  flush(): void;
}

export interface LineBufferOptions {
  /** Longest time a line waits (default 100 ms). */
  intervalMs?: number;
  /** Written at once when this many characters wait (default 64 Ki, a Linux pipe's buffer). */
  maxBytes?: number;
}

/** Buffers lines for `sink` (the writer of standard output). The timer never keeps the process alive. */
export function bufferedLines(sink: (text: string) => void, { intervalMs = 100, maxBytes = 64 * 1024 }: LineBufferOptions = {}): LineBuffer {
  let pending = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending === '') return;
    const text = pending;
    pending = '';
    sink(text);
  };
  return {
    write(line) {
      pending += line;
      if (pending.length >= maxBytes) return flush();
      if (timer === undefined) {
        timer = setTimeout(flush, intervalMs);
        timer.unref();
      }
    },
    flush,
  };
}

/** Standard output through a LineBuffer, flushed when the process exits (writes to a pipe or file are synchronous then). */
export function bufferedStdout(options: LineBufferOptions = {}): LineBuffer {
  const buffer = bufferedLines((text) => process.stdout.write(text), options);
  process.on('exit', buffer.flush);
  return buffer;
}
