/**
 * Kubernetes' AST validators (cel-go `ValidateDurationLiterals`, `ValidateTimestampLiterals`,
 * `ValidateRegexLiterals`): constant arguments that can never work are compile errors.
 */
import type { Expr } from './ast.js';
import { CelEvalError, type CelIssue } from './errors.js';
import { compileRegex } from './stdlib.js';
import { parseDuration, parseTimestamp } from './time.js';

const validators: Record<string, (s: string) => string | undefined> = {
  duration: (s) => (parseDuration(s) ? undefined : `invalid duration '${s}'`),
  timestamp: (s) => (parseTimestamp(s) ? undefined : `invalid timestamp '${s}'`),
  matches: regexError,
  find: regexError,
  findAll: regexError,
};

function regexError(s: string): string | undefined {
  try {
    compileRegex(s);
    return undefined;
  } catch (e) {
    return e instanceof CelEvalError ? e.message : String(e);
  }
}

export function validateLiterals(root: Expr): CelIssue[] {
  const issues: CelIssue[] = [];
  const visit = (e: Expr): void => {
    switch (e.kind) {
      case 'select':
        visit(e.operand);
        return;
      case 'call': {
        if (e.target) visit(e.target);
        e.args.forEach(visit);
        const v = validators[e.fn];
        const arg = e.args[0];
        if (v && arg && arg.kind === 'literal' && typeof arg.value === 'string') {
          const err = v(arg.value);
          if (err) issues.push({ message: `invalid ${e.fn} argument: ${err}`, offset: arg.pos });
        }
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
