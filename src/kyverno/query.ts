/** The JMESPath evaluator variables and lists use: Kyverno's dialect from ./jmespath. */
import type { JsonValue } from '../json/index.js';
import type { QueryFn } from './context.js';
import { search } from './jmespath/index.js';

export const kyvernoQuery: QueryFn = (expression: string, data: JsonValue) => search(expression, data);
