/** The log of connections refused at the cap (AMENDER_MAX_CONNECTIONS), which a flood must not flood. */
import type { Logger } from '../server/index.js';

/** Logs refused connections: the first at once, then one line per window with how many followed. */
export function refusedConnectionsLog(logger: Logger, maxConnections: number, windowMs = 10_000): { dropped: () => void; total: () => number } {
  let total = 0;
  let unreported = 0;
  let window: ReturnType<typeof setTimeout> | undefined;
  const report = (count: number) =>
    logger({ level: 'warn', msg: 'connections refused', reason: `${maxConnections} connections open (AMENDER_MAX_CONNECTIONS)`, count });
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
    dropped: () => {
      total++;
      if (window) return void unreported++;
      report(1);
      openWindow();
    },
    total: () => total,
  };
}
