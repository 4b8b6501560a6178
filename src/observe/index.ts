/**
 * Logs and metrics, platform-free (no HTTP, no Node module), so every layer from `policyset` up can
 * report without reaching into `server/`.
 *
 *   jsonLineLogger(write, { minLevel?, now? }): Logger     one JSON object per line
 *   silentLogger, isLogLevel(text)
 *   new Registry(); registry.register(new Counter | Histogram | CallbackCounter | CallbackGauge)
 *   registry.render()                                       Prometheus text format 0.0.4
 */
export { jsonLineLogger, silentLogger, isLogLevel, type Logger, type LogLevel, type LogRecord } from './log.js';
export { Counter, CallbackCounter, CallbackGauge, Histogram, Registry, PROMETHEUS_CONTENT_TYPE } from './metrics.js';
