/**
 * How the suites that load a built server with autocannon (40-http, 45-pool) bound and warm their load.
 *
 * Every run is bounded in time and in count, but the duration is what ends it: autocannon ends a run at
 * its next one-second tick once its request count is reached, and counts the wait as run time
 * (node_modules/autocannon/lib/run.js, `tickInterval`). The trivial handler reached the former bound of
 * 100,000 requests mid-second in every run and was reported at 100,000 ÷ 3.01, 4.01 or 5.01 s, below its
 * rate by up to a third. The count bound is now far above what the duration can bring here.
 *
 * Before a server is measured it takes the same load for WARMUP_SECONDS, so that what is measured is the
 * server and not V8 still optimizing it (in every thread: the review workers each see a share of the
 * reviews). Under 50 connections the built server with its pool completed 372 optimizations in the first
 * 3 s, 41–51 in each of the next two and 2–8 after that, while its rate rose from 7,100 to 11,000
 * requests/s; in process 213, 10, then 1–2 (Node 24, --trace-opt; bench/JOURNAL.md, "What stop 25 did").
 * The 3,000 requests of the warm-up before left the pool mid-way.
 */

/** A count no run of this length reaches on the machines this runs on (the trivial handler: ~30,000/s). */
const COUNT_BOUND_PER_SECOND = 200_000;

export const WARMUP_SECONDS = 10;

/** autocannon options for `connections` busy for `seconds`. */
export function loadFor(connections: number, seconds: number): { connections: number; duration: number; maxOverallRequests: number } {
  return { connections, duration: seconds, maxOverallRequests: COUNT_BOUND_PER_SECOND * seconds };
}
