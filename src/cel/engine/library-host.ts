/**
 * Hosts `CelLibrary` modules (src/cel/library.ts). A library registers through the registration calls
 * of cel-js's `Environment` (`registerFunction`, `registerType`, `registerOperator`, `registerConstant`,
 * `registerVariable`); this host accepts those calls, in the signature syntax cel-js documents, and
 * records them in an engine `Env`, where a later declaration of an identical signature replaces an
 * earlier one (so a library may supersede a standard function, e.g. RE2 `matches`).
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { CelLibrary } from '../library.js';
import type { Env } from './env.js';
import { classesForType, makeOverload, registerValueClass, type Impl, type Overload } from './functions.js';
import { compile } from './program.js';
import { registerEquality } from './runtime.js';
import { CelType, Kind, T } from './types.js';
import { Duration as CelJsDuration } from '@marcbachmann/cel-js/evaluator';
import { Duration, Timestamp, type CelValue } from './values.js';

const OPERATOR_FUNCTIONS: Record<string, string> = {
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  in: '@in',
};

interface FunctionSpec {
  signature?: string;
  name?: string;
  receiverType?: string;
  returnType?: string;
  params?: { name?: string; type: string }[];
  handler?: Impl;
}

export class LibraryHost {
  private readonly libraries = new Map<string, CelLibrary>();
  /** Methods some library declared a cel-js macro for (see below). */
  private readonly macroMethods = new Set<string>();
  /** `@name` overloads registered by libraries. */
  private readonly atOverloads: Overload[] = [];
  private readonly aliased = new Set<Overload>();
  /** Macro declarations, which only cel-js can run; the engine's parser implements its own. */
  readonly skippedMacros: string[] = [];

  constructor(private readonly env: Env) {}

  /**
   * Registers a library (into `target`, by default the host's environment, e.g. a child environment
   * for libraries only some expressions may use); errors name the library and the failing declaration.
   */
  add(lib: CelLibrary, target: Env = this.env): void {
    this.libraries.set(lib.name, lib);
    const registrar = new Registrar(target, lib.name, this);
    try {
      lib.register(registrar as unknown as Environment);
    } catch (e) {
      throw new Error(`CEL library '${lib.name}': ${(e as Error).message}`);
    }
    this.applyOverrideAliases(target);
  }

  recordMacro(method: string, signature: string): void {
    this.macroMethods.add(method);
    this.skippedMacros.push(signature);
  }

  recordAtOverload(o: Overload): void {
    this.atOverloads.push(o);
  }

  /**
   * Libraries written for cel-js replace a built-in method `m` by declaring a macro for `m` that
   * rewrites calls to `@m`, and registering their implementation as `@m`. Here built-ins can be
   * replaced directly, so `@m` overloads are simply declared as `m` too.
   */
  private applyOverrideAliases(target: Env): void {
    for (const o of this.atOverloads) {
      const name = o.fn.slice(1);
      if (this.aliased.has(o) || !this.macroMethods.has(name)) continue;
      this.aliased.add(o);
      target.addFunction({ ...o, id: `${o.id}#${name}`, fn: name });
    }
  }

  /** The cost a library assigns to one call, or undefined for the default. */
  cost(o: Overload, args: readonly CelValue[], result: CelValue): number | undefined {
    const lib = o.library ? this.libraries.get(o.library) : undefined;
    if (!lib?.callCost) return undefined;
    try {
      const c = lib.callCost(o.fn, args, result);
      return typeof c === 'number' && Number.isFinite(c) && c >= 0 ? c : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Converts values libraries return into the engine's value model. */
export function normalizeLibraryValue(v: unknown): CelValue {
  if (v === null || typeof v !== 'object') return v as CelValue;
  if (v instanceof Set) return [...v] as CelValue;
  // cel-js timestamps and durations without the nanosecond fields of ours
  if (v instanceof Date && !(v instanceof Timestamp)) return new Timestamp(BigInt(v.getTime()) * 1_000_000n);
  if (v instanceof CelJsDuration && !(v instanceof Duration)) return new Duration(v.seconds * 1_000_000_000n + BigInt(v.nanos));
  return v as CelValue;
}

class Registrar {
  constructor(
    private readonly env: Env,
    private readonly library: string,
    private readonly host: LibraryHost,
  ) {}

  registerFunction(signature: string | FunctionSpec, handler?: Impl | FunctionSpec, opts?: FunctionSpec): this {
    let spec: FunctionSpec;
    if (typeof signature === 'string') {
      spec = typeof handler === 'function' ? { ...opts, signature, handler } : { ...(handler as FunctionSpec), signature };
    } else spec = signature;
    const impl = spec.handler;
    if (typeof impl !== 'function') throw new Error(`function ${spec.signature ?? spec.name}: handler must be a function`);
    let name: string;
    let receiver: string | undefined;
    let argTypes: string[];
    let returnType: string;
    if (spec.signature) {
      const m = /^\s*(?:([A-Za-z0-9_.<>, ]+?)\.)?([A-Za-z_@][\w]*)\s*\(([^)]*)\)\s*:\s*(.+?)\s*$/.exec(spec.signature);
      if (!m) throw new Error(`invalid function signature '${spec.signature}'`);
      receiver = m[1];
      name = m[2];
      argTypes = splitTypes(m[3]);
      returnType = m[4];
    } else {
      if (!spec.name || !spec.returnType) throw new Error('function declarations need a name and a returnType');
      name = spec.name;
      receiver = spec.receiverType;
      argTypes = (spec.params ?? []).map((p) => p.type);
      returnType = spec.returnType;
    }
    if (argTypes.some((t) => t.trim() === 'ast')) {
      this.host.recordMacro(name, spec.signature ?? name);
      return this;
    }
    // "a.b.f(...)" where "a.b" is not a type is a namespaced global function (strings.quote, ...).
    let member = false;
    let params: CelType[] = argTypes.map((t) => this.env.parseType(t));
    if (receiver !== undefined) {
      let recvType: CelType | undefined;
      try {
        recvType = this.env.parseType(receiver);
      } catch {
        recvType = undefined;
      }
      if (recvType) {
        member = true;
        params = [recvType, ...params];
      } else {
        name = `${receiver}.${name}`;
      }
    }
    const result = this.env.parseType(returnType);
    const id = `${this.library}:${member ? `${params[0]}.` : ''}${name}(${params.slice(member ? 1 : 0).join(',')})`;
    const o = makeOverload({ id, fn: name, member, params, result, impl, library: this.library });
    this.env.addFunction(o);
    if (name.startsWith('@')) this.host.recordAtOverload(o);
    return this;
  }

  registerType(name: string | { name?: string; ctor?: Function; fields?: Record<string, string> }, decl?: Function | { ctor?: Function; fields?: Record<string, string> }): this {
    let typeName: string | undefined;
    let ctor: Function | undefined;
    let fields: Record<string, string> | undefined;
    if (typeof name === 'string') {
      typeName = name;
      if (typeof decl === 'function') ctor = decl;
      else {
        ctor = decl?.ctor;
        fields = decl?.fields;
      }
    } else {
      typeName = name.name ?? name.ctor?.name;
      ctor = name.ctor;
      fields = name.fields;
    }
    if (!typeName) throw new Error('registerType needs a type name');
    if (this.env.lookupTypeName(typeName)) return this;
    this.env.addOpaqueType(typeName);
    if (ctor) {
      let fieldType: ((f: string) => CelType | undefined) | undefined;
      if (fields) {
        const declared = new Map(Object.entries(fields).map(([k, t]) => [k, this.env.parseType(t)]));
        fieldType = (f) => declared.get(f);
      }
      registerValueClass(ctor, typeName, fieldType);
    }
    return this;
  }

  registerOperator(signature: string, handler: (a: any, b: any) => any): this {
    const m = /^\s*([\w.<>, ]+?)\s+(==|!=|<=|>=|[-+*/%<>]|in)\s+([\w.<>, ]+?)\s*(?::\s*([\w.<>, ]+))?\s*$/.exec(signature);
    if (!m) {
      const u = /^\s*([-!])\s*([\w.<>, ]+?)\s*(?::\s*([\w.<>, ]+))?\s*$/.exec(signature);
      if (!u) throw new Error(`invalid operator signature '${signature}'`);
      const t = this.env.parseType(u[2]);
      const fn = u[1] === '-' ? '_-_' : '!_';
      const result = u[3] ? this.env.parseType(u[3]) : t;
      this.env.addFunction(makeOverload({ id: `${this.library}:${signature}`, fn: fn === '_-_' ? '-_' : fn, params: [t], result, impl: handler, library: this.library }));
      return this;
    }
    const [, l, op, r, ret] = m;
    const lt = this.env.parseType(l);
    const rt = this.env.parseType(r);
    if (op === '==' || op === '!=') {
      // Equality is heterogeneous and generic; library types take part through an equality hook.
      const eq = op === '==' ? handler : (a: unknown, b: unknown) => !handler(a, b);
      for (const t of [lt, rt]) {
        if (t.kind !== Kind.Opaque) continue;
        for (const ctor of classesForType(t.name)) registerEquality(ctor, (a, b) => Boolean(eq(a, b)));
      }
      return this;
    }
    const fn = OPERATOR_FUNCTIONS[op];
    const result = ret ? this.env.parseType(ret) : ['<', '<=', '>', '>=', 'in'].includes(op) ? T.bool : lt;
    this.env.addFunction(makeOverload({ id: `${this.library}:${signature}`, fn, params: [lt, rt], result, impl: handler, library: this.library }));
    return this;
  }

  registerConstant(name: string | { name: string; type: string; value: unknown }, type?: string, value?: unknown): this {
    const d = typeof name === 'string' ? { name, type: type!, value } : name;
    this.env.addIdent({ name: d.name, type: this.env.parseType(d.type), value: d.value as CelValue });
    return this;
  }

  registerVariable(name: string | { name: string; type: string }, type?: string): this {
    const d = typeof name === 'string' ? { name, type: type! } : name;
    this.env.addIdent({ name: d.name, type: this.env.parseType(d.type) });
    return this;
  }

  /** Evaluates a constant expression in the environment declared so far (libraries use it to obtain type values). */
  evaluate(expression: string): CelValue {
    const out = compile(expression, this.env);
    if (!out.ok) throw new Error(out.message);
    const r = out.program.evaluate({ resolve: () => undefined }, Number.MAX_SAFE_INTEGER);
    if (!r.ok) throw new Error(r.error);
    return r.value;
  }

  hasVariable(name: string): boolean {
    return this.env.lookupIdentExact(name) !== undefined;
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
