/**
 * The variables an expression may reference: the first `size` declarations of a policy, with their
 * static types. Variable i of a policy is compiled with the i variables before it, so the scopes of
 * one policy grow by one name each; they share one append-only table (as kube-apiserver's composition
 * environment grows one field map) and each is named by a short interned key. Copying the names per
 * variable and spelling them all in every cache key made a policy's compile quadratic in time and in
 * the memory the program cache kept (4,000 variables: 6 s and 1.2 GB).
 */
import type { CelType } from '../engine/types.js';
import { LruCache } from './cache.js';

interface Declaration {
  readonly name: string;
  readonly type: CelType;
}

/** Interned keys of (scope, name, type); an evicted key is only a cache miss, ids are never reused. */
const interned = new LruCache<string>(16_384);
let nextId = 0;

export class VariableScope {
  static readonly EMPTY = new VariableScope([], new Map(), 0, '');

  private constructor(
    /** Shared by every scope of the chain; entries past `size` belong to later scopes. */
    private readonly declarations: Declaration[],
    /** Positions of each name in `declarations`, ascending (a name declared twice has two). */
    private readonly positions: Map<string, number[]>,
    readonly size: number,
    /** Identifies the names and types in order; '' for no variables. */
    readonly key: string,
  ) {}

  /** The static type of a variable declared in this scope (its latest declaration), else undefined. */
  get(name: string): CelType | undefined {
    const at = this.positions.get(name);
    if (!at) return undefined;
    for (let i = at.length - 1; i >= 0; i--) if (at[i] < this.size) return this.declarations[at[i]].type;
    return undefined;
  }

  /** This scope and one more declaration. */
  extend(name: string, type: CelType): VariableScope {
    const key = internKey(`${this.key}|${name}:${type}`);
    // The tip of a chain grows its shared table (each variable of a policy, in turn); the empty scope,
    // shared by every policy, or a scope extended a second time starts a table of its own.
    const grows = this.size > 0 && this.size === this.declarations.length;
    const declarations = grows ? this.declarations : this.declarations.slice(0, this.size);
    const positions = grows ? this.positions : positionsOf(declarations);
    const at = positions.get(name);
    if (at) at.push(declarations.length);
    else positions.set(name, [declarations.length]);
    declarations.push({ name, type });
    return new VariableScope(declarations, positions, declarations.length, key);
  }
}

function positionsOf(declarations: readonly Declaration[]): Map<string, number[]> {
  const positions = new Map<string, number[]>();
  declarations.forEach((d, i) => {
    const at = positions.get(d.name);
    if (at) at.push(i);
    else positions.set(d.name, [i]);
  });
  return positions;
}

function internKey(spelled: string): string {
  let key = interned.get(spelled);
  if (key === undefined) {
    key = `#${(nextId++).toString(36)}`;
    interned.set(spelled, key);
  }
  return key;
}
