/**
 * Counts the turns of the event loop (a setImmediate chain) until stopped: how tests see that long work
 * lets the loop turn, counted rather than timed.
 */
export function eventLoopTicker(): { turns: () => number; stop: () => void } {
  let turns = 0;
  let running = true;
  const tick = () => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return { turns: () => turns, stop: () => void (running = false) };
}
