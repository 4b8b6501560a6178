/** Defaults of the Node server's connection settings (README "Configuration"), shared by the server and its config. */

/** Longest time to receive a whole request (AMENDER_REQUEST_TIMEOUT_MS). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Longest time to receive a request's headers (AMENDER_HEADERS_TIMEOUT_MS); the API server sends them at once. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** Connections held at once (AMENDER_MAX_CONNECTIONS): an API server uses a few; a flood is refused. */
export const DEFAULT_MAX_CONNECTIONS = 1024;
/**
 * Requests in flight at once, over every connection (AMENDER_MAX_REQUESTS). Without it an HTTP/2 connection's
 * 250 streams multiply the connection cap: a request waiting for its body costs the server ~15 KB (3,840
 * streams that sent only their headers: ~60 MB), so a few hundred connections of open streams would take
 * gigabytes. An API server sends at most --max-mutating-requests-inflight (200) writes at once, and
 * reviews beyond the pool's queue are refused anyway. At the cap, requests whose bodies are slow to arrive
 * make room first (node-slow-requests.ts).
 */
export const DEFAULT_MAX_REQUESTS = 1024;
/** How long a drain waits for requests in flight before cutting connections (AMENDER_SHUTDOWN_TIMEOUT_MS). */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 20_000;
/**
 * How often the certificate and key files are looked at for a rotation (AMENDER_TLS_RELOAD_SECONDS): the
 * kubelet takes up to a minute or so to update a mounted Secret, and a look is two `stat` calls.
 */
export const DEFAULT_TLS_RELOAD_SECONDS = 10;
/** The longest check interval of the TLS files, as for the policy refresh: a day (a setInterval takes at most 24.8). */
export const MAX_TLS_RELOAD_SECONDS = 86_400;
/**
 * Bytes of log lines standard output may hold unwritten before lines are dropped (AMENDER_LOG_BACKLOG_BYTES):
 * about a minute of a busy server's lines, a bounded part of its memory.
 */
export const DEFAULT_LOG_BACKLOG_BYTES = 16 * 1024 * 1024;

/** AMENDER_BODY_BUDGET_MB without a memory limit. */
export const DEFAULT_BODY_BUDGET_MB = 256;
/** Nor less than this under a small limit: a few ordinary reviews' worth is never the bound. */
const MIN_BODY_BUDGET_MB = 16;

/**
 * MiB of request bodies the Node server holds at once (AMENDER_BODY_BUDGET_MB) when not set: a sixteenth
 * of a memory limit (32 for the Knative manifest's 512 MiB), at most DEFAULT_BODY_BUDGET_MB. Each body held
 * costs about its size again while it crosses to a worker and until it is collected, and the workers' heaps
 * may take three quarters of the limit (pool/variables.ts). Measured in a 512 MiB memory cgroup
 * (scripts/memory-burst.mjs), 64 reviews of 6.1 MiB at once peaked at 276–282 MiB with this default, where
 * without a budget 16 killed the process (README, "Isolation"); an eighth left 256 MiB too little margin.
 */
export function defaultBodyBudgetMb(memoryLimitBytes: number | undefined): number {
  if (memoryLimitBytes === undefined) return DEFAULT_BODY_BUDGET_MB;
  return Math.min(DEFAULT_BODY_BUDGET_MB, Math.max(MIN_BODY_BUDGET_MB, Math.floor(memoryLimitBytes / 2 ** 20 / 16)));
}

/**
 * How long a connection may see nothing received or sent before it is closed (startNodeServer's
 * idleTimeoutMs): AMENDER_REQUEST_TIMEOUT_MS, but never less than a review may take to be answered (its
 * deadline, plus a margin for the review worker's grace period, 1 s by default), so that a connection
 * waiting for its answer is never taken for an idle one.
 */
export function idleTimeoutMs(requestTimeoutMs: number, reviewDeadlineMs: number): number {
  return Math.max(requestTimeoutMs, reviewDeadlineMs + 5000);
}
