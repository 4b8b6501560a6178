/** Kyverno's policy validation: what Kyverno refuses when a policy is created, checked when Amender compiles it. */
export { checkPolicy } from './policy-checks.js';
export { checkRule, checkRuleContext } from './rule-checks.js';
export { checkV2beta1Rule } from './v2beta1.js';
export type { ProblemSink } from './sink.js';
