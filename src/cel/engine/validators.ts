/**
 * Kubernetes' AST validators: constant arguments that can never work are compile errors. Durations
 * and timestamps are checked here (cel-go `ValidateDurationLiterals`, `ValidateTimestampLiterals`);
 * other functions' checks are declared by their libraries (`registerLiteralCheck`: the regex
 * library's, with kube-apiserver's texts). The checked argument is the call's first after the receiver,
 * as cel-go's formatValidator reads it (argNum 0): `s.matches(re)`, `duration(s)`, and — a cel-go quirk
 * kube-apiserver keeps — the input `s` of the global `matches(s, re)`.
 */
import type { Expr } from './ast.js';
import type { Env } from './env.js';
import type { CelIssue } from './errors.js';
import { checkTimestamp, parseDuration, parseTimestamp } from './time.js';
import { NANOS_PER_SECOND } from './values.js';

/**
 * cel-go's formatValidator evaluates the call on its literal (evalCall) and reports only
 * `invalid <fn> argument` when that fails, for any literal: `timestamp(-62135596801)` too.
 */
const builtin: Record<string, (literal: unknown) => boolean> = {
  duration: (v) => typeof v !== 'string' || parseDuration(v) !== undefined,
  timestamp: (v) => {
    const t = typeof v === 'string' ? parseTimestamp(v) : undefined;
    if (typeof v === 'string' && !t) return false;
    const ns = t ? t.ns : typeof v === 'bigint' ? v * NANOS_PER_SECOND : undefined;
    if (ns === undefined) return true;
    try {
      checkTimestamp(ns);
      return true;
    } catch {
      return false;
    }
  },
};

export function validateLiterals(root: Expr, env: Env): CelIssue[] {
  const issues: CelIssue[] = [];
  const visit = (e: Expr): void => {
    switch (e.kind) {
      case 'select':
        visit(e.operand);
        return;
      case 'call': {
        if (e.target) visit(e.target);
        e.args.forEach(visit);
        const check = env.lookupLiteralCheck(e.fn);
        const arg = e.args[0];
        if (check && arg && arg.kind === 'literal' && typeof arg.value === 'string') {
          const err = check(arg.value);
          if (err) issues.push({ message: err, offset: arg.pos });
        } else if (!check && arg?.kind === 'literal' && Object.hasOwn(builtin, e.fn) && !builtin[e.fn](arg.value)) {
          issues.push({ message: `invalid ${e.fn} argument`, offset: arg.pos });
        }
        const callIssue = env.lookupCallCheck(e.fn)?.(e);
        if (callIssue) issues.push(callIssue);
        return;
      }
      case 'list':
        e.elements.forEach(visit);
        return;
      case 'map':
        for (const x of e.entries) {
          visit(x.key);
          visit(x.value);
        }
        return;
      case 'struct':
        for (const f of e.fields) visit(f.value);
        return;
      case 'comprehension':
        [e.iterRange, e.accuInit, e.loopCondition, e.loopStep, e.result].forEach(visit);
        return;
      default:
        return;
    }
  };
  visit(root);
  return issues;
}
