/**
 * Function table: signatures, go-jmespath's argument checking (arity, then types; variadic functions
 * are checked for arity only, as in Go) and the context functions receive.
 */
import type { ReviewGuard } from '../../guard/index.js';
import { InvalidArityError, InvalidTypeError, UnknownFunctionError } from './errors.js';
import { ExpRef, goFormatV, type Value } from './values.js';
import type { SizeMemo } from './size.js';

export type ArgType = 'number' | 'string' | 'boolean' | 'array' | 'object' | 'array[number]' | 'array[string]' | 'expref' | 'any';

export interface ArgSpec {
  types: ArgType[];
  variadic?: boolean;
}

/** Services a function may need; injectable for tests and deterministic runs. */
export interface CallContext {
  /** Current time in milliseconds since the Unix epoch. */
  now(): number;
  /** A uniform random number in [0, 1). */
  random(): number;
  /** Kyverno's image settings (config map keys defaultRegistry / enableDefaultRegistryMutation). */
  images: { defaultRegistry: string; enableDefaultRegistryMutation: boolean };
  /** The review's deadline and size bound: functions that grow text or walk values check it. */
  guard: ReviewGuard;
  /**
   * Where the sizes of measured arrays and objects are remembered beyond one evaluation (the review's memo,
   * src/kyverno/measure.ts): a list flattened by every query of a review is then walked once. Values are
   * never changed once built. Default: a memo per evaluation.
   */
  sizes?: SizeMemo;
}

export interface FunctionDef {
  name: string;
  args: ArgSpec[];
  returns: ArgType[];
  /** One line, as `kyverno jp function` shows it. */
  note: string;
  call(args: Value[], ctx: CallContext): Value;
}

function matches(type: ArgType, v: Value): boolean {
  switch (type) {
    case 'any':
      return true;
    case 'number':
      return typeof v === 'number';
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof ExpRef);
    case 'expref':
      return v instanceof ExpRef;
    case 'array[number]':
      return Array.isArray(v) && v.every((x) => typeof x === 'number');
    case 'array[string]':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
  }
}

/** go-jmespath's resolveArgs: throws the errors Go returns, with Go's messages. */
export function checkArgs(def: FunctionDef, args: Value[]): void {
  const specs = def.args;
  if (specs.length === 0) return; // Go does not check the arity of argument-less functions.
  if (!specs[specs.length - 1].variadic) {
    if (specs.length !== args.length) throw new InvalidArityError(def.name, 'incorrect number of args');
    for (let i = 0; i < specs.length; i++) {
      const types = specs[i].types;
      let ok = false;
      for (let t = 0; t < types.length && !ok; t++) ok = matches(types[t], args[i]);
      if (!ok) {
        const expected = `[]jmespath.JpType{${types.map((t) => `"${t}"`).join(', ')}}`;
        throw new InvalidTypeError(def.name, `Invalid type for: ${goFormatV(args[i])}, expected: ${expected}`);
      }
    }
    return;
  }
  if (args.length < specs.length) throw new InvalidArityError(def.name, 'Invalid arity.');
}

export class FunctionTable {
  private readonly table = new Map<string, FunctionDef>();
  constructor(defs: Iterable<FunctionDef> = []) {
    for (const d of defs) this.table.set(d.name, d);
  }
  register(def: FunctionDef): void {
    this.table.set(def.name, def);
  }
  get(name: string): FunctionDef | undefined {
    return this.table.get(name);
  }
  require(name: string): FunctionDef {
    const def = this.table.get(name);
    if (!def) throw new UnknownFunctionError(name);
    return def;
  }
  list(): FunctionDef[] {
    return [...this.table.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
