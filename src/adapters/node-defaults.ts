/** Defaults of the Node server's connection settings (README "Configuration"), shared by the server and its config. */

/** Longest time to receive a whole request (AMENDER_REQUEST_TIMEOUT_MS). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Longest time to receive a request's headers (AMENDER_HEADERS_TIMEOUT_MS); the API server sends them at once. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** Connections held at once (AMENDER_MAX_CONNECTIONS): an API server uses a few; a flood is refused. */
export const DEFAULT_MAX_CONNECTIONS = 1024;
/** How long a drain waits for requests in flight before cutting connections (AMENDER_SHUTDOWN_TIMEOUT_MS). */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 20_000;
/**
 * How often the certificate and key files are looked at for a rotation (AMENDER_TLS_RELOAD_SECONDS): the
 * kubelet takes up to a minute or so to update a mounted Secret, and a look is two `stat` calls.
 */
export const DEFAULT_TLS_RELOAD_SECONDS = 10;
/**
 * Bytes of log lines standard output may hold unwritten before lines are dropped (AMENDER_LOG_BACKLOG_BYTES):
 * about a minute of a busy server's lines, a bounded part of its memory.
 */
export const DEFAULT_LOG_BACKLOG_BYTES = 16 * 1024 * 1024;
