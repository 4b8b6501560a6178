/**
 * Hosts `CelLibrary` modules (src/cel/library.ts): records each library's declarations in an engine
 * `Env` and answers the cost of its calls. A declaration with the signature of an existing overload
 * replaces it (a library may supersede a standard function, e.g. RE2 `matches`).
 */
import { ReviewAborted } from '../../guard/index.js';
import type { CelLibrary, CelLibraryValue, FunctionOptions, LibraryRegistrar, MacroExpander } from '../library.js';
import { macroKey } from './macros.js';
import type { CallCheck, Env } from './env.js';
import { makeOverload, registerValueClass, type Impl, type Overload } from './functions.js';
import { isBuiltinTypeName, type CelType } from './types.js';
import type { CelValue } from './values.js';

export class LibraryHost {
  private readonly libraries = new Map<string, CelLibrary>();

  constructor(private readonly env: Env) {}

  /**
   * Registers a library (into `target`, by default the host's environment, e.g. a child environment
   * for libraries only some expressions may use); errors name the library and the failing declaration.
   */
  add(lib: CelLibrary, target: Env = this.env): void {
    this.libraries.set(lib.name, lib);
    try {
      lib.register(new Registrar(target, lib.name));
    } catch (e) {
      throw new Error(`CEL library '${lib.name}': ${(e as Error).message}`);
    }
  }

  /** The cost a library assigns to one call from its arguments alone (CelLibrary.callCostFromArgs), or undefined. */
  costFromArgs(o: Overload, args: readonly CelValue[]): number | undefined {
    return this.libraryCost(o, (lib) => lib.callCostFromArgs?.(o.fn, args));
  }

  /** The cost a library assigns to one call, or undefined for the default. */
  cost(o: Overload, args: readonly CelValue[], result: CelValue): number | undefined {
    return this.libraryCost(o, (lib) => lib.callCost?.(o.fn, args, result));
  }

  /**
   * What `ask` gets of the overload's library, when it is a usable cost; a library's fault is no cost.
   * The review's guard stopping a cost that walks a value (traversalCost) still stops the evaluation.
   */
  private libraryCost(o: Overload, ask: (lib: CelLibrary) => number | undefined): number | undefined {
    const lib = o.library ? this.libraries.get(o.library) : undefined;
    if (!lib) return undefined;
    try {
      const c = ask(lib);
      return typeof c === 'number' && Number.isFinite(c) && c >= 0 ? c : undefined;
    } catch (e) {
      if (e instanceof ReviewAborted) throw e;
      return undefined;
    }
  }
}

const SIGNATURE = /^\s*(?:([A-Za-z0-9_.<>, ]+?)\.)?([A-Za-z_@][\w]*)\s*\(([^)]*)\)\s*:\s*(.+?)\s*$/;
const QUALIFIED_NAME = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/;

class Registrar implements LibraryRegistrar {
  constructor(
    private readonly env: Env,
    private readonly library: string,
  ) {}

  /**
   * Records the overload under its name; the types are parsed when the name is first looked up
   * (Env.addLazyFunction), so the libraries cost little until an expression uses them.
   */
  registerFunction(signature: string, impl: (...args: any[]) => unknown, options: FunctionOptions = {}): void {
    if (typeof impl !== 'function') throw new Error(`function ${signature}: the implementation must be a function`);
    const m = SIGNATURE.exec(signature);
    if (!m) throw new Error(`invalid function signature '${signature}'`);
    const [, receiver, fnName, argText, resultText] = m;
    // "sets.contains(...)": `sets` is no type, so this is the namespaced global function.
    const member = receiver !== undefined && this.isType(receiver);
    if (receiver !== undefined && !member && !QUALIFIED_NAME.test(receiver)) {
      throw new Error(`unknown receiver type '${receiver}' in '${signature}'`);
    }
    const name = receiver !== undefined && !member ? `${receiver}.${fnName}` : fnName;
    const { env, library } = this;
    env.addLazyFunction(name, () => {
      const params: CelType[] = splitTypes(argText).map((t) => env.parseType(t));
      if (member) params.unshift(env.parseType(receiver!));
      const result = env.parseType(resultText);
      const id = `${library}:${member ? `${params[0]}.` : ''}${name}(${params.slice(member ? 1 : 0).join(',')})`;
      return makeOverload({ id, fn: name, member, params, result, impl: impl as Impl, library, pure: options.pure === true });
    });
  }

  registerType(name: string, valueClass: abstract new (...args: any[]) => CelLibraryValue): void {
    if (!QUALIFIED_NAME.test(name)) throw new Error(`invalid type name '${name}'`);
    if (!this.env.lookupTypeName(name)) this.env.addOpaqueType(name);
    registerValueClass(valueClass, name);
  }

  registerStruct(name: string, fields: Readonly<Record<string, string>>): void {
    if (!QUALIFIED_NAME.test(name)) throw new Error(`invalid type name '${name}'`);
    const types = new Map(Object.entries(fields).map(([f, t]) => [f, this.env.parseType(t)] as const));
    this.env.addStruct({ name, fieldType: (f) => types.get(f), zeroDefaults: true, native: true });
  }

  registerLiteralCheck(fn: string, check: (literal: string) => string | undefined): void {
    this.env.addLiteralCheck(fn, check);
  }

  registerCallCheck(fn: string, check: CallCheck): void {
    this.env.addCallCheck(fn, check);
  }

  registerPlanCheck(fn: string, index: number, check: (literal: string) => string | undefined): void {
    this.env.addPlanCheck(fn, { index, check });
  }

  registerMacro(name: string, args: number | 'variadic', receiver: boolean, expand: MacroExpander): void {
    this.env.addMacro(macroKey(name, args === 'variadic' ? '*' : args, receiver), expand);
  }

  /** A receiver is a type (`string`, `list<T>`, `net.IP`) unless it is a namespace (`sets`). */
  private isType(receiver: string): boolean {
    if (!QUALIFIED_NAME.test(receiver)) return true;
    return isBuiltinTypeName(receiver) || this.env.lookupTypeName(receiver) !== undefined;
  }
}

function splitTypes(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '<' || ch === '(') depth++;
    else if (ch === '>' || ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}
