/** The JMESPath evaluator variables and lists use: Kyverno's dialect from ./jmespath. */
import type { QueryFn } from './context.js';
import { search } from '../jmespath/index.js';

export const kyvernoQuery: QueryFn = (expression, data, guard, sizes) => search(expression, data, { guard, sizes });
