/**
 * Log lines of the Node server, buffered: a write to a pipe (a container's log) is a synchronous system
 * call on Linux, and one per request cost about a tenth of a review's CPU. Lines are kept in memory and
 * written together when `intervalMs` has passed since the first one waiting, when `maxBytes` are waiting,
 * or when `flush()` is called — the server calls it once its policy sets have first loaded (so that the
 * start's lines appear when it is ready), when its drain starts and when the process exits (process.exit,
 * the end of the event loop, a fatal error), so no line is lost at SIGTERM. A process
 * killed outright (SIGKILL, out of memory) loses at most the last interval's lines.
 *
 * What the pipe does not take at once waits in the process's memory, without bound: a log reader that
 * stops reading (a container runtime behind a full or slow disk) would grow the server until it is
 * killed. Past `maxBacklogBytes` waiting, lines are dropped and counted instead, and a notice of how many
 * is written before the first line written again (boundedSink).
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

/** A sink that drops what it is given while the writer behind it is too far behind (see boundedSink). */
export interface BoundedSink {
  write(text: string): void;
  /** Lines dropped since the start. */
  dropped(): number;
}

/**
 * Writes through `write` unless `backlog()` (bytes the writer has not written yet) is `limit` or more:
 * then the text's lines are dropped and counted, and `notice(count)` (a line of its own) is written
 * before the next text that goes through.
 */
export function boundedSink(write: (text: string) => void, backlog: () => number, limit: number, notice: (dropped: number) => string): BoundedSink {
  let dropped = 0;
  let unannounced = 0;
  return {
    write(text) {
      if (backlog() >= limit) {
        let lines = 0;
        for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
        dropped += lines;
        unannounced += lines;
        return;
      }
      if (unannounced > 0) {
        write(notice(unannounced));
        unannounced = 0;
      }
      write(text);
    },
    dropped: () => dropped,
  };
}

export interface StdoutOptions extends LineBufferOptions {
  /** Bytes standard output may hold unwritten before lines are dropped (AMENDER_LOG_BACKLOG_BYTES). */
  maxBacklogBytes: number;
  /** The line that says how many lines were dropped (written before the next one that goes through). */
  droppedNotice: (dropped: number) => string;
}

/**
 * Standard output through a LineBuffer, flushed when the process exits (writes to a pipe or file are
 * synchronous then). Standard output that fails (its reader closed the pipe: EPIPE) takes no more lines,
 * which are dropped and counted; without a listener its error event would end the process, and every
 * review in flight with it.
 */
export function bufferedStdout(options: StdoutOptions): LineBuffer & { dropped(): number } {
  const { maxBacklogBytes, droppedNotice, ...lineOptions } = options;
  let failed = false;
  process.stdout.on('error', () => {
    failed = true;
  });
  const sink = boundedSink((text) => process.stdout.write(text), () => (failed ? Infinity : process.stdout.writableLength), maxBacklogBytes, droppedNotice);
  const buffer = bufferedLines(sink.write, lineOptions);
  process.on('exit', buffer.flush);
  return { ...buffer, dropped: sink.dropped };
}
