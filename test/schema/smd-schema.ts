/**
 * structured-merge-diff schema YAML (`types: [{name, map|list|scalar}]`, as SMD's own tests write them) →
 * Amender's schema model. Only for the SMD table tests whose schemas a CRD cannot express (untyped atomic
 * values: `__untyped_atomic_` is what kube-apiserver gives RawExtension, never a CRD field).
 */
import { parse } from 'yaml';
import { NamedRef, type Atom, type FieldDef, type ListType, type ObjectType, type TypeRef } from '../../src/schema/index.js';

interface SmdTypeRef {
  namedType?: string;
  scalar?: string;
  list?: SmdList;
  map?: SmdMap;
  elementRelationship?: 'atomic' | 'separable';
}
interface SmdList {
  elementType: SmdTypeRef;
  elementRelationship?: 'atomic' | 'associative';
  keys?: string[];
}
interface SmdMap {
  fields?: { name: string; type: SmdTypeRef; default?: unknown }[];
  elementType?: SmdTypeRef;
  elementRelationship?: 'atomic' | 'separable';
}

const SCALARS: Record<string, Atom['scalar']> = { numeric: 'number', string: 'string', boolean: 'boolean', untyped: 'untyped' };

export function smdSchema(yamlText: string): (name: string) => TypeRef {
  const types = new Map<string, SmdTypeRef>();
  for (const t of (parse(yamlText) as { types: (SmdTypeRef & { name: string })[] }).types) types.set(t.name, t);
  const atoms = new Map<string, Atom>();
  const named = (name: string): Atom => {
    let atom = atoms.get(name);
    if (!atom) {
      const def = types.get(name);
      if (!def) throw new Error(`no type ${name}`);
      atom = {};
      atoms.set(name, atom); // recursive types resolve lazily through NamedRef
      Object.assign(atom, convert(def));
    }
    return atom;
  };
  const ref = (r: SmdTypeRef): TypeRef =>
    r.namedType !== undefined ? new NamedRef(r.namedType, named, r.elementRelationship) : convert(r);
  const convert = (r: SmdTypeRef): Atom => {
    const out: { scalar?: Atom['scalar']; list?: Atom['list']; map?: Atom['map'] } = {};
    if (r.scalar !== undefined) out.scalar = SCALARS[r.scalar] ?? fail(`scalar ${r.scalar}`);
    if (r.list) {
      const keys = r.list.keys ?? [];
      const listType: ListType = r.list.elementRelationship === 'associative' ? (keys.length > 0 ? 'map' : 'set') : 'atomic';
      out.list = { elem: ref(r.list.elementType), listType, keys };
    }
    if (r.map) {
      const fields = r.map.fields && new Map(r.map.fields.map((f): [string, FieldDef] => [f.name, f.default !== undefined ? { type: ref(f.type), default: f.default as never } : { type: ref(f.type) }]));
      out.map = { ...(fields ? { fields } : {}), ...(r.map.elementType ? { elem: ref(r.map.elementType) } : {}), atomic: r.map.elementRelationship === 'atomic' };
    }
    return out;
  };
  return (name) => new NamedRef(name, named);
}

function fail(what: string): never {
  throw new Error(`unsupported SMD schema: ${what}`);
}

/**
 * The root type as a kind: kube-apiserver's schema of every kind declares apiVersion and kind (CRD
 * conversion adds them too), and the ApplyConfiguration gets the object's apiVersion/kind stamped.
 */
export function smdKind(root: TypeRef, gvk: { group: string; version: string; kind: string }): ObjectType {
  const atom = root instanceof NamedRef ? root.atom : root;
  const fields = new Map(atom.map?.fields ?? []);
  fields.set('apiVersion', { type: { scalar: 'string' } });
  fields.set('kind', { type: { scalar: 'string' } });
  return { ...gvk, source: 'crd', name: 'smd-test', root: { ...atom, map: { ...atom.map!, fields } } };
}
