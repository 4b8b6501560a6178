import type { Context } from 'hono';
import { withoutQuotedSource, type PolicySetProvider, type Problem } from '../../policyset/index.js';
import type { AppEnv } from '../context.js';
import { middleTruncatedForLog } from '../../observe/index.js';

/** Liveness: the process answers. */
export function healthz(c: Context<AppEnv>): Response {
  return c.json({ status: 'ok' });
}

export const notDraining = (): boolean => false;
export const available = (): string | undefined => undefined;

/** What the process says of itself to the readiness probe, beside its policy set (app.ts's options). */
export interface Serving {
  /** True while the server shuts down. */
  draining: () => boolean;
  /** Why no review can be evaluated now (the review workers cannot start), or undefined. */
  unavailable: () => string | undefined;
}

const alwaysServing: Serving = { draining: notDraining, unavailable: available };

/**
 * Problems a /readyz answer lists, and warnings. The kubelet probes every few seconds: a source of
 * thousands of broken documents (or of policies no binding names) would make each answer megabytes. A
 * hundred show what is wrong; `counts.problems` stays exact, and `amender validate` lists them all.
 */
export const READYZ_MAX_PROBLEMS = 100;
export const READYZ_MAX_WARNINGS = 100;
/**
 * Characters of a problem's message /readyz shows. A field error quotes the value it refuses, and a
 * CEL expression can be most of a 1 MiB file: its first and last thousand say where and why (the cause
 * is at the end), whatever the value's size.
 */
export const READYZ_MAX_PROBLEM_MESSAGE = 2048;

function shownProblem(problem: Problem): Problem {
  const shown = withoutQuotedSource(problem);
  if (shown.message.length <= READYZ_MAX_PROBLEM_MESSAGE) return shown;
  return { ...shown, message: middleTruncatedForLog(shown.message, READYZ_MAX_PROBLEM_MESSAGE) };
}

/** The first `max` items, and when some are left out, how many there are and how many are not shown. */
function bounded<T>(items: readonly T[], max: number): { shown: readonly T[]; total?: number; omitted?: number } {
  if (items.length <= max) return { shown: items };
  return { shown: items.slice(0, max), total: items.length, omitted: items.length - max };
}

/** The problems shown (`problemCount`, `problemsOmitted` when some are left out). */
function shownProblems(problems: readonly Problem[]) {
  const { shown, total, omitted } = bounded(problems, READYZ_MAX_PROBLEMS);
  return { problems: shown.map(shownProblem), ...(total === undefined ? {} : { problemCount: total, problemsOmitted: omitted }) };
}

/** The warnings shown, none when there are none (`warningCount`, `warningsOmitted` when some are left out). */
function shownWarnings(warnings: readonly string[] | undefined) {
  if (!warnings || warnings.length === 0) return {};
  const { shown, total, omitted } = bounded(warnings, READYZ_MAX_WARNINGS);
  return { warnings: shown, ...(total === undefined ? {} : { warningCount: total, warningsOmitted: omitted }) };
}

/**
 * Readiness: a policy set is loaded, reviews can be evaluated and the server is not shutting down. The
 * reply says what is in force — counts, the problems of the set (a broken policy is reported and the
 * others serve) and the errors of its source — so an operator sees at a glance why a policy does nothing.
 * Until its set has loaded the answer is 503, so a set still loading (or whose source is unreachable)
 * keeps only itself out of service.
 */
export function readyz(policies: PolicySetProvider, serving: Serving = alwaysServing) {
  return (c: Context<AppEnv>): Response => {
    const state = policies();
    if (serving.draining()) {
      return c.json({ ready: false, draining: true, source: state.source, message: 'shutting down: answering the requests in flight' }, 503);
    }
    if (!state.set) {
      return c.json({ ready: false, source: state.source, message: 'no policy set is loaded yet', sourceErrors: state.sourceErrors }, 503);
    }
    const unavailable = serving.unavailable();
    if (unavailable !== undefined) return c.json({ ready: false, source: state.source, message: unavailable }, 503);
    return c.json({
      ready: true,
      source: state.source,
      loadedAt: state.loadedAt?.toISOString(),
      counts: state.set.counts,
      ...shownProblems(state.set.problems),
      sourceErrors: state.sourceErrors,
      // Ready all the same: e.g. a source that holds no policy (a mistyped prefix reads as empty).
      ...shownWarnings(state.warnings),
    });
  };
}
