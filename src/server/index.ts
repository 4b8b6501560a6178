export { createApp, type AmenderApp, type AppOptions } from './app.js';
export type { AppEnv } from './context.js';
export { mutateHandler, type MutateDeps } from './routes/mutate.js';
export { answerReview, answerReviewText, type ReviewAnswer, type ReviewOutcome } from './review.js';
export { fixedPolicySet, type PolicySetProvider, type PolicySetState } from './policy-state.js';
export { DEFAULT_LIMITS, resolveLimits, type Limits } from './limits.js';
export { jsonLineLogger, silentLogger, isLogLevel, type Logger, type LogLevel, type LogRecord } from './log.js';
export { statusBody, type StatusBody, type HttpErrorCode } from './status.js';
export { Counter, CallbackCounter, CallbackGauge, Histogram, Registry, PROMETHEUS_CONTENT_TYPE } from './metrics.js';
