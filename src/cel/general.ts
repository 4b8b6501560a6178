/**
 * A general-purpose CEL environment with the same engine and libraries as the admission environment
 * but caller-chosen declarations: conformance runs and tools that check expressions outside a policy.
 */
import { Env, declareStandardTypes } from './engine/env.js';
import { LibraryHost } from './engine/library-host.js';
import { compile, type Program } from './engine/program.js';
import { registerStdlib } from './engine/stdlib.js';
import type { CelType } from './engine/types.js';
import type { CelValue } from './engine/values.js';
import { libraries as defaultLibraries } from './lib/index.js';
import type { CelLibrary } from './library.js';

export interface CelEnvironmentOptions {
  /** Namespace for name resolution (`a.b` resolves `x` as `a.b.x`, `a.x`, `x`). */
  container?: string;
  /** Variables and their types, in cel-go type syntax or with angle brackets (`int`, `list(string)`, `map<string, dyn>`). */
  variables?: Record<string, string>;
  /** Mixed-type list/map literals are errors (as in Kubernetes); default false (plain CEL). */
  homogeneousAggregateLiterals?: boolean;
  /** Libraries to include; default: all of src/cel/lib. */
  libraries?: readonly CelLibrary[];
  /** Compile-time validation of constant duration/timestamp/regex arguments (Kubernetes); default false. */
  validateLiterals?: boolean;
  /**
   * A presence test on a value without fields (`has(1.f)`) is an error, as cel-spec says; default true.
   * Kubernetes leaves cel-go's EnableErrorOnBadPresenceTest off: false there.
   */
  errorOnBadPresenceTest?: boolean;
  /**
   * `duration.getMilliseconds()` is the milliseconds within the second, as cel-spec says; default true.
   * cel-go (so Kubernetes) returns the whole duration in milliseconds: false there.
   */
  durationMillisecondsComponent?: boolean;
  /**
   * A map literal with a repeated key (`{'a': 1, 'a': 2}`) is an error, as cel-spec says; default true.
   * cel-go (so Kubernetes) keeps the last entry: false there.
   */
  errorOnRepeatedMapKey?: boolean;
  /**
   * A map literal with a double or null key (`{1.5: 'a'}`) is an error, as cel-spec says; default true.
   * cel-go (so Kubernetes) keeps such a key: false there.
   */
  errorOnDoubleOrNullMapKey?: boolean;
  /**
   * An index whose constant key cannot be a qualifier (`m[null]`) fails when evaluated, as in cel-go
   * without OptOptimize (the cel-spec conformance tests); default true. Kubernetes fails program
   * creation instead: false there.
   */
  invalidConstantKeyAtEvaluation?: boolean;
}

export type GeneralEvalResult = { ok: true; value: CelValue; cost: number } | { ok: false; message: string; cost: number };

export class GeneralProgram {
  constructor(
    /** @internal */ private readonly program: Program,
    /** Static type (cel-go spelling), or undefined when compiled without checking. */
    readonly typeName: string | undefined,
  ) {}

  /** Evaluates with variable bindings (CEL values) and a cost limit (default: unlimited). Never throws. */
  evaluate(bindings: Record<string, unknown> | ((name: string) => unknown) = {}, costLimit = Number.MAX_SAFE_INTEGER): GeneralEvalResult {
    const resolve = typeof bindings === 'function' ? bindings : (n: string) => (Object.prototype.hasOwnProperty.call(bindings, n) ? bindings[n] : undefined);
    const r = this.program.evaluate({ resolve }, costLimit);
    return r.ok ? r : { ok: false, message: r.error, cost: r.cost };
  }
}

export type GeneralCompileResult = { ok: true; program: GeneralProgram; typeName: string | undefined } | { ok: false; message: string };

export class CelEnvironment {
  private readonly env: Env;
  private readonly planOptions;
  private readonly validate: boolean;
  readonly libraryErrors: string[] = [];

  constructor(options: CelEnvironmentOptions = {}) {
    const base = new Env(undefined, {
      homogeneousAggregateLiterals: options.homogeneousAggregateLiterals ?? false,
      container: options.container ?? '',
    });
    declareStandardTypes(base);
    registerStdlib(base, { durationMilliseconds: options.durationMillisecondsComponent === false ? 'total' : 'component' });
    const host = new LibraryHost(base);
    for (const lib of options.libraries ?? defaultLibraries) {
      try {
        host.add(lib);
      } catch (e) {
        this.libraryErrors.push((e as Error).message);
      }
    }
    for (const [name, type] of Object.entries(options.variables ?? {})) {
      base.addIdent({ name, type: base.parseType(type) });
    }
    this.env = base;
    this.validate = options.validateLiterals ?? false;
    this.planOptions = {
      libraryCost: host.cost.bind(host),
      libraryCostFromArgs: host.costFromArgs.bind(host),
      errorOnBadPresenceTest: options.errorOnBadPresenceTest ?? true,
      errorOnRepeatedMapKey: options.errorOnRepeatedMapKey ?? true,
      errorOnDoubleOrNullMapKey: options.errorOnDoubleOrNullMapKey ?? true,
      invalidConstantKeyAtEvaluation: options.invalidConstantKeyAtEvaluation ?? true,
    };
  }

  /** Declares a variable with an engine type (for tools translating other type systems). */
  declare(name: string, type: CelType | string): void {
    this.env.addIdent({ name, type: typeof type === 'string' ? this.env.parseType(type) : type });
  }

  parseType(text: string): CelType {
    return this.env.parseType(text);
  }

  /** Parses, optionally type-checks, and plans an expression. Never throws. */
  compile(expression: string, options: { check?: boolean } = {}): GeneralCompileResult {
    try {
      const out = compile(expression, this.env, { check: options.check, validateLiterals: this.validate, plan: this.planOptions });
      if (!out.ok) return { ok: false, message: out.message };
      const typeName = out.type?.toString();
      return { ok: true, program: new GeneralProgram(out.program, typeName), typeName };
    } catch (e) {
      return { ok: false, message: `internal error: ${(e as Error).message}` };
    }
  }
}
