import type { JsonValue } from '../json/index.js';
import type { CrdDefaults } from './crd-defaults.js';

/**
 * The schema model, shaped like structured-merge-diff's (SMD) so the merge can follow its rules one to
 * one: an Atom may be a scalar, a list and/or a map (several only for untyped/deduced values, where the
 * value itself picks one), a struct is a map with declared fields.
 */

/** SMD treats `integer` and `number` alike (`numeric`); the strict decoder needs the difference. */
export type ScalarKind = 'string' | 'integer' | 'number' | 'boolean' | 'untyped';

export interface Atom {
  readonly scalar?: ScalarKind;
  /** Only for untyped scalars: `date-time`, `quantity`, `int-or-string` (what the strict decoder checks). */
  readonly format?: string;
  readonly list?: ListDef;
  readonly map?: MapDef;
}

export type ListType = 'atomic' | 'set' | 'map';

export interface ListDef {
  readonly elem: TypeRef;
  /** `set` = associative list of scalars, `map` = associative list of objects keyed by `keys`. */
  readonly listType: ListType;
  readonly keys: readonly string[];
}

export interface MapDef {
  /** Declared fields (a struct). Absent for a plain map with arbitrary keys. */
  readonly fields?: ReadonlyMap<string, FieldDef>;
  /** Type of keys that are not declared fields; absent = such keys are not allowed. */
  readonly elem?: TypeRef;
  /** Replaced as a whole by a merge (`+structType=atomic`, `+mapType=atomic`). */
  readonly atomic: boolean;
  /** Type id of a named struct (messages of the strict decoder), e.g. `io.k8s.api.core.v1.PodSpec`. */
  readonly name?: string;
}

export interface FieldDef {
  readonly type: TypeRef;
  /** Schema default; the merge uses it when a list-map item omits a key field. */
  readonly default?: JsonValue;
  /** Strategic-merge-patch tags of built-in types (`merge`, `merge,retainKeys`, `retainKeys`, `replace`). */
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
  /**
   * Built-in types only: the Go struct field behind it, as one letter of scripts/schema/go-fields-generate.ts
   * (`s` string, `i` int32, `a` slice, `p` pointer, …; upper case when its json tag lacks `omitempty`).
   * What kube-apiserver's round trip through the Go type does to a value depends on it (go-fields.ts).
   */
  readonly go?: string;
}

/** A reference to a named type, resolved on first use (built-in types are decoded lazily). */
export class NamedRef {
  private resolved: Atom | undefined;
  constructor(
    readonly id: string,
    private readonly resolver: (id: string) => Atom,
    /** Field-level override of the referenced struct's relationship (`+structType=granular|atomic`). */
    readonly relationship?: 'atomic' | 'separable',
  ) {}

  get atom(): Atom {
    if (this.resolved === undefined) {
      const target = this.resolver(this.id);
      this.resolved = this.relationship && target.map ? withMapRelationship(target, this.relationship === 'atomic') : target;
    }
    return this.resolved;
  }
}

export type TypeRef = Atom | NamedRef;

export function resolve(ref: TypeRef): Atom {
  return ref instanceof NamedRef ? ref.atom : ref;
}

function withMapRelationship(atom: Atom, atomic: boolean): Atom {
  if (!atom.map || atom.map.atomic === atomic) return atom;
  return { ...atom, map: { ...atom.map, atomic } };
}

/** SMD `__untyped_deduced_`: maps merge key by key, lists are atomic, anything goes. */
export const DEDUCED: Atom = makeUntyped(false);
/** SMD `__untyped_atomic_` (RawExtension): replaced as a whole. */
export const UNTYPED_ATOMIC: Atom = makeUntyped(true);

function makeUntyped(atomicMap: boolean): Atom {
  const list: { elem: TypeRef; listType: ListType; keys: readonly string[] } = { elem: {}, listType: 'atomic', keys: [] };
  const map: { elem: TypeRef; atomic: boolean } = { elem: {}, atomic: atomicMap };
  const atom: Atom = { scalar: 'untyped', list, map };
  list.elem = atom;
  map.elem = atom;
  return atom;
}

/** The schema of one kind of object, as the registry hands it out. */
export interface ObjectType {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Where the schema came from: the built-in table, a CustomResourceDefinition, or deduced from the value. */
  readonly source: 'builtin' | 'crd' | 'deduced';
  /** Built-in type id (`io.k8s.api.apps.v1.Deployment`), CRD name, or `__untyped_deduced_`. */
  readonly name: string;
  readonly root: TypeRef;
  /** A CRD version's schema defaults (crd-defaults.ts); absent when it has none. */
  readonly defaults?: CrdDefaults;
}
