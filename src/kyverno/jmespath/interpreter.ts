/**
 * Compiles a parsed expression into nested closures that evaluate it with Kyverno's semantics.
 *
 * Kyverno's go-jmespath fork makes a field access on an object that lacks the key fail with
 * `Unknown key "x" in path` (a field on null or on a non-object is just null). That failure travels up
 * through sub-expressions and index expressions, and is turned back into null by every tolerant
 * context: function arguments, comparisons, `||` (both sides), the left side of `&&`, `!`, pipes,
 * projections, filters and multi-selects. Here it travels as the MISSING sentinel (no exception on
 * the hot path); the key is kept in the evaluation state for the message.
 */
import type { JsonValue } from '../../json/index.js';
import { JmesPathRuntimeError, UnknownFunctionError, UnresolvedKeyError } from './errors.js';
import type { Comparator, Node } from './parser.js';
import { checkArgs, type CallContext, type FunctionTable } from './registry.js';
import { deepEqual, ExpRef, isFalse, toJson, type Value } from './values.js';

export const MISSING: unique symbol = Symbol('missing');
type Result = Value | typeof MISSING;

export interface State {
  missingKey: string;
  ctx: CallContext;
  sawExpRef: boolean;
}

export type Evaluator = (value: Value, state: State) => Result;

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const tolerate = (r: Result): Value => (r === MISSING ? null : r);

function compareNumbers(op: Comparator, a: number, b: number): boolean {
  switch (op) {
    case 'lt':
      return a < b;
    case 'lte':
      return a <= b;
    case 'gt':
      return a > b;
    default:
      return a >= b;
  }
}

/** go-jmespath slice semantics (Python-like clamping; step 0 is an error). */
export function sliceArray<T>(arr: T[], start: number | null, stop: number | null, step: number | null): T[] {
  const len = arr.length;
  const st = step === null ? 1 : step;
  if (st === 0) throw new JmesPathRuntimeError('Invalid slice, step cannot be 0');
  const cap = (n: number): number => {
    if (n < 0) {
      n += len;
      if (n < 0) n = st < 0 ? -1 : 0;
    } else if (n >= len) {
      n = st < 0 ? len - 1 : len;
    }
    return n;
  };
  const from = start === null ? (st < 0 ? len - 1 : 0) : cap(start);
  const to = stop === null ? (st < 0 ? -1 : len) : cap(stop);
  const out: T[] = [];
  if (st > 0) for (let i = from; i < to; i += st) out.push(arr[i]);
  else for (let i = from; i > to; i += st) out.push(arr[i]);
  return out;
}

export function compileNode(node: Node, functions: FunctionTable): Evaluator {
  const c = (n: Node) => compileNode(n, functions);
  switch (node.type) {
    case 'Identity':
    case 'Current':
      return (v) => v;
    case 'Literal': {
      const value = node.value;
      return () => value;
    }
    case 'Field': {
      const name = node.name;
      return (v, s) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof ExpRef) return null;
        if (hasOwn(v, name)) return v[name];
        s.missingKey = name;
        return MISSING;
      };
    }
    case 'Subexpression':
    case 'IndexExpression': {
      const left = c(node.left);
      const right = c(node.right);
      return (v, s) => {
        const l = left(v, s);
        if (l === MISSING) return MISSING;
        if (l === null) return null;
        return right(l, s);
      };
    }
    case 'Index': {
      const index = node.index;
      return (v) => {
        if (!Array.isArray(v)) return null;
        const i = index < 0 ? index + v.length : index;
        return i >= 0 && i < v.length ? v[i] : null;
      };
    }
    case 'Slice': {
      const { start, stop, step } = node;
      return (v) => (Array.isArray(v) ? sliceArray(v, start, stop, step) : null);
    }
    case 'Projection': {
      const left = c(node.left);
      const right = c(node.right);
      const identity = node.right.type === 'Identity';
      return (v, s) => {
        const l = tolerate(left(v, s));
        if (!Array.isArray(l)) return null;
        const out: Value[] = [];
        for (const item of l) {
          const r = identity ? item : tolerate(right(item, s));
          if (r !== null) out.push(r);
        }
        return out as JsonValue;
      };
    }
    case 'ValueProjection': {
      const left = c(node.left);
      const right = c(node.right);
      return (v, s) => {
        let l: Result;
        try {
          l = left(v, s);
        } catch {
          return null; // go-jmespath swallows every error of a value projection's left side
        }
        if (typeof l !== 'object' || l === null || Array.isArray(l) || l instanceof ExpRef) return null;
        const out: Value[] = [];
        for (const key in l) {
          if (!hasOwn(l, key)) continue;
          const r = tolerate(right(l[key], s));
          if (r !== null) out.push(r);
        }
        return out as JsonValue;
      };
    }
    case 'FilterProjection': {
      const left = c(node.left);
      const right = c(node.right);
      const cond = c(node.condition);
      return (v, s) => {
        let l: Result;
        try {
          l = left(v, s);
        } catch {
          return null; // as in Go: any error on the filtered side yields null
        }
        if (!Array.isArray(l)) return null;
        const out: Value[] = [];
        for (const item of l) {
          if (isFalse(tolerate(cond(item, s)))) continue;
          const r = tolerate(right(item, s));
          if (r !== null) out.push(r);
        }
        return out as JsonValue;
      };
    }
    case 'Flatten': {
      const child = c(node.child);
      return (v, s) => {
        let l: Result;
        try {
          l = child(v, s);
        } catch {
          return null;
        }
        if (!Array.isArray(l)) return null;
        const out: JsonValue[] = [];
        for (const item of l) {
          if (Array.isArray(item)) for (const x of item) out.push(x);
          else out.push(item);
        }
        return out;
      };
    }
    case 'MultiSelectList': {
      const children = node.children.map(c);
      return (v, s) => children.map((ch) => tolerate(ch(v, s))) as JsonValue;
    }
    case 'MultiSelectHash': {
      const entries = node.entries.map((e) => ({ key: e.key, value: c(e.value) }));
      return (v, s) => {
        const out: Record<string, Value> = {};
        for (const e of entries) {
          const r = tolerate(e.value(v, s));
          if (e.key === '__proto__') Object.defineProperty(out, e.key, { value: r, enumerable: true, writable: true, configurable: true });
          else out[e.key] = r;
        }
        return out as JsonValue;
      };
    }
    case 'Or': {
      const left = c(node.left);
      const right = c(node.right);
      return (v, s) => {
        const l = tolerate(left(v, s));
        return isFalse(l) ? tolerate(right(v, s)) : l;
      };
    }
    case 'And': {
      const left = c(node.left);
      const right = c(node.right);
      // Only the left side is tolerant: Kyverno returns the right side's result (and error) as is.
      return (v, s) => {
        const l = tolerate(left(v, s));
        return isFalse(l) ? l : right(v, s);
      };
    }
    case 'Not': {
      const child = c(node.child);
      return (v, s) => isFalse(tolerate(child(v, s)));
    }
    case 'Comparator': {
      const left = c(node.left);
      const right = c(node.right);
      const op = node.op;
      if (op === 'eq') return (v, s) => deepEqual(tolerate(left(v, s)), tolerate(right(v, s)));
      if (op === 'ne') return (v, s) => !deepEqual(tolerate(left(v, s)), tolerate(right(v, s)));
      return (v, s) => {
        const l = tolerate(left(v, s));
        const r = tolerate(right(v, s));
        if (typeof l !== 'number' || typeof r !== 'number') return null;
        return compareNumbers(op, l, r);
      };
    }
    case 'Pipe': {
      const left = c(node.left);
      const right = c(node.right);
      return (v, s) => tolerate(right(tolerate(left(v, s)), s));
    }
    case 'ExpRef': {
      const child = c(node.child);
      return (_v, s) => {
        s.sawExpRef = true;
        return new ExpRef((x) => {
          const r = tolerate(child(x, s));
          return r instanceof ExpRef ? null : r;
        });
      };
    }
    case 'Function': {
      const name = node.name;
      const args = node.args.map(c);
      const def = functions.get(name);
      if (!def) {
        return (v, s) => {
          for (const a of args) a(v, s); // Go evaluates the arguments before looking the name up
          throw new UnknownFunctionError(name);
        };
      }
      return (v, s) => {
        const values = args.map((a) => tolerate(a(v, s)));
        checkArgs(def, values);
        return def.call(values, s.ctx);
      };
    }
  }
}

/** Runs a compiled evaluator at the top level: an unresolved key becomes UnresolvedKeyError. */
export function run(evaluator: Evaluator, data: JsonValue, ctx: CallContext): Value {
  const state: State = { missingKey: '', ctx, sawExpRef: false };
  const result = evaluator(data, state);
  if (result === MISSING) throw new UnresolvedKeyError(state.missingKey);
  return state.sawExpRef ? toJson(result) : result;
}
