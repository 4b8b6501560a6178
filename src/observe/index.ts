/**
 * Logs and metrics, platform-free (no HTTP, no Node module), so every layer from `policyset` up can
 * report without reaching into `server/`.
 *
 *   jsonLineLogger(write, { minLevel?, now? }): Logger     one JSON object per line
 *   silentLogger, isLogLevel(text)
 *   truncatedForLog(text, max)                              a client's unbounded string, cut with its length
 *   middleTruncatedForLog(text, max)                        the same, cut in its middle (a message ending in its cause)
 *   new Registry(); registry.register(new Counter | Histogram | CallbackCounter | CallbackGauge)
 *   counter.child(labels), histogram.child(labels), new ChildTable(names, create)   series resolved once
 *   registry.render()                                       Prometheus text format 0.0.4
 */
export { formatLogLine, jsonLineLogger, silentLogger, isLogLevel, truncatedForLog, middleTruncatedForLog, type Logger, type LogLevel, type LogRecord } from './log.js';
export { Counter, CallbackCounter, CallbackGauge, ChildTable, Histogram, Registry, PROMETHEUS_CONTENT_TYPE, type CounterChild, type HistogramChild } from './metrics.js';
