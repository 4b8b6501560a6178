/**
 * Turns of the event loop shared by everything that parses policy files in slices: each turn lets one
 * waiter go on. A refresh reads up to 8 files at once (LoadLimits.concurrency), and every setImmediate
 * queued in one turn runs in the next check phase, one after the other: 8 slices of parsing (each some
 * 10 ms, more where a large document is composed) before the loop polled its sockets again, so a probe
 * or a review waited for all of them. Handing the turns out one at a time puts the poll between any two
 * slices. Core-safe: setImmediate where there is one (Node), else a timer (Workers).
 */

const waiting: (() => void)[] = [];
let scheduled = false;

const schedule = (run: () => void): void => {
  if (typeof setImmediate === 'function') setImmediate(run);
  else setTimeout(run, 0);
};

function turn(): void {
  scheduled = false;
  waiting.shift()?.();
  if (waiting.length > 0) {
    scheduled = true;
    schedule(turn);
  }
}

/** Resolves at a later turn of the event loop, the waiters one per turn, in the order they asked. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!scheduled) {
      scheduled = true;
      schedule(turn);
    }
  });
}
