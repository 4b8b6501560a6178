/** Every function Amender's Kyverno JMESPath knows: the standard set, then Kyverno's (which win). */
import type { FunctionDef } from '../registry.js';
import { standardFunctions } from './standard.js';

export const allFunctions: FunctionDef[] = [...standardFunctions];
