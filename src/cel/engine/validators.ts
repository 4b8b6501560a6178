/**
 * Kubernetes' AST validators: constant arguments that can never work are compile errors. Durations
 * and timestamps are checked here (cel-go `ValidateDurationLiterals`, `ValidateTimestampLiterals`);
 * other functions' checks are declared by their libraries (`registerLiteralCheck`: the regex
 * library's, with kube-apiserver's texts). The checked argument is the call's first after the receiver,
 * as cel-go's formatValidator reads it (argNum 0): `s.matches(re)`, `duration(s)`, and — a cel-go quirk
 * kube-apiserver keeps — the input `s` of the global `matches(s, re)`.
 */
import type { Expr } from './ast.js';
import type { Env, LiteralCheck } from './env.js';
import type { CelIssue } from './errors.js';
import { parseDuration, parseTimestamp } from './time.js';

const builtin: Record<string, LiteralCheck> = {
  duration: (s) => (parseDuration(s) ? undefined : `invalid duration argument: invalid duration '${s}'`),
  timestamp: (s) => (parseTimestamp(s) ? undefined : `invalid timestamp argument: invalid timestamp '${s}'`),
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
        const check = env.lookupLiteralCheck(e.fn) ?? (Object.hasOwn(builtin, e.fn) ? builtin[e.fn] : undefined);
        const arg = e.args[0];
        if (check && arg && arg.kind === 'literal' && typeof arg.value === 'string') {
          const err = check(arg.value);
          if (err) issues.push({ message: err, offset: arg.pos });
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
