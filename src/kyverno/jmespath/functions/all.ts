/** Every function Amender's Kyverno JMESPath knows: the standard set, then Kyverno's (which win). */
import type { FunctionDef } from '../registry.js';
import { arithmeticFunctions } from './arithmetic.js';
import { encodingFunctions } from './encoding.js';
import { miscFunctions } from './misc.js';
import { objectFunctions } from './objects.js';
import { regexFunctions } from './regex.js';
import { standardFunctions } from './standard.js';
import { stringFunctions } from './strings.js';
import { timeFunctions } from './time.js';

export const kyvernoFunctions: FunctionDef[] = [
  ...stringFunctions,
  ...regexFunctions,
  ...objectFunctions,
  ...arithmeticFunctions,
  ...encodingFunctions,
  ...timeFunctions,
  ...miscFunctions,
];

export const allFunctions: FunctionDef[] = [...standardFunctions, ...kyvernoFunctions];
