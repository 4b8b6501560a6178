/**
 * The log of what the Node server does at a cap (connections refused over AMENDER_MAX_CONNECTIONS, requests
 * refused or slow ones ended over AMENDER_MAX_REQUESTS), which a flood must not flood.
 */
import type { Logger } from '../server/index.js';

/**
 * Logs each event as `msg` with `reason`: the first at once, then one line per window with how many
 * followed; `flush` logs those not yet reported now (the server stops before the window ends).
 */
export function capEventLog(logger: Logger, msg: string, reason: string, windowMs = 10_000): { record: () => void; total: () => number; flush: () => void } {
  let total = 0;
  let unreported = 0;
  let window: ReturnType<typeof setTimeout> | undefined;
  const report = (count: number) => logger({ level: 'warn', msg, reason, count });
  const closeWindow = () => {
    window = undefined;
    if (unreported === 0) return;
    report(unreported);
    unreported = 0;
    openWindow();
  };
  const openWindow = () => {
    window = setTimeout(closeWindow, windowMs);
    window.unref();
  };
  return {
    record: () => {
      total++;
      if (window) return void unreported++;
      report(1);
      openWindow();
    },
    total: () => total,
    flush: () => {
      clearTimeout(window);
      window = undefined;
      if (unreported > 0) report(unreported);
      unreported = 0;
    },
  };
}
