import { internalized } from '../json/index.js';
import { BuiltinTypes } from './builtin.js';
import { PREFIXES } from './data/builtin.js';
import { KYAML_KINDS, KYAML_TYPES_TEXT } from './data/kyaml.js';
import { resolve, type Atom, type FieldDef } from './types.js';

/**
 * The built-in types as Kyverno's strategic merge sees them. kustomize kyaml (v0.21.1 in Kyverno) takes
 * patch strategies and merge keys from its own compiled-in OpenAPI data, Kubernetes v1.21.2
 * (kyaml/openapi: `kubernetesapi.DefaultOpenAPI`), and Kyverno never calls `openapi.SetSchema`. So:
 * - a kind that v1.21.2 lacks (autoscaling/v2, flowcontrol v1, resource.k8s.io, …) has no schema at all:
 *   kyaml's `SchemaForResourceType` finds schemas by apiVersion + kind only;
 * - a field that v1.21.2 lacks (Pod `schedulingGates`, `resourceClaims`, …) has no schema: its lists
 *   are replaced whole (IsAssociative without schema is false: the filter leaves inference off) and
 *   nothing below it is typed;
 * - a list whose v1.21.2 patch strategy or merge keys differ (EphemeralContainer `ports`) is merged as then.
 *
 * Generated from kyaml's data by scripts/schema/kyaml-generate.ts as differences from the current table
 * (data/kyaml.ts, a few KB): every type is decoded from the current table and its listed fields adjusted.
 */
export class KyamlTypes extends BuiltinTypes {
  private readonly adjusted = new Map<string, Atom>();

  override kindTypeId(group: string, version: string, kind: string): string | undefined {
    return kyamlKinds().has(`${group}/${version}/${kind}`) ? super.kindTypeId(group, version, kind) : undefined;
  }

  /** The current type with kyaml's view of its listed fields (its refs resolve through this view too). */
  override type(id: string): Atom {
    let atom = this.adjusted.get(id);
    if (atom === undefined) {
      atom = adjust(super.type(id), overrides().get(id));
      this.adjusted.set(id, atom);
    }
    return atom;
  }
}

function adjust(atom: Atom, fieldCodes: ReadonlyMap<string, string> | undefined): Atom {
  const map = atom.map;
  if (fieldCodes === undefined || map?.fields === undefined) return atom;
  const fields = new Map(map.fields);
  for (const [name, code] of fieldCodes) {
    const field = fields.get(name);
    if (field === undefined) continue;
    if (code === '-') fields.delete(name);
    else fields.set(name, withListFacts(field, code));
  }
  return { ...atom, map: { ...map, fields } };
}

/** `r`: the list is replaced; `m`: merged as a union; `m(k1,k2)`: merged by those keys. */
function withListFacts(field: FieldDef, code: string): FieldDef {
  const list = resolve(field.type).list;
  if (list === undefined) throw new Error(`kyaml data: ${code} on a field that is not a list`);
  if (code === 'r') return { type: field.type, ...(field.default !== undefined ? { default: field.default } : {}) };
  const keys = code.length > 1 ? code.slice(2, -1).split(',').map(internalized) : [];
  return {
    type: { list: { elem: list.elem, listType: keys.length > 0 ? 'map' : 'set', keys } },
    ...(field.default !== undefined ? { default: field.default } : {}),
    patchStrategy: 'merge',
  };
}

let kinds: ReadonlySet<string> | undefined;
const kyamlKinds = (): ReadonlySet<string> => (kinds ??= new Set(KYAML_KINDS));

let parsed: Map<string, Map<string, string>> | undefined;

/** Full type id → field → code, read from the data on first use. */
function overrides(): Map<string, Map<string, string>> {
  if (parsed === undefined) {
    parsed = new Map();
    for (const line of KYAML_TYPES_TEXT.split('\n')) {
      const tab = line.indexOf('\t');
      if (tab < 0) continue;
      const fields = new Map<string, string>();
      for (const entry of line.slice(tab + 1).split(';')) {
        const colon = entry.indexOf(':');
        fields.set(entry.slice(0, colon), entry.slice(colon + 1));
      }
      parsed.set(expandId(line.slice(0, tab)), fields);
    }
  }
  return parsed;
}

/** The short type ids of the data (as data/builtin.ts shortens them) in full. */
function expandId(short: string): string {
  for (const [prefix, long] of PREFIXES) if (short.startsWith(prefix)) return long + short.slice(prefix.length);
  return short;
}
