import { internalized } from '../json/index.js';
import type { Atom, FieldDef, ObjectType } from './types.js';

/**
 * The objects of CONNECT requests: core/v1 PodExecOptions, PodAttachOptions, PodPortForwardOptions,
 * PodProxyOptions, NodeProxyOptions, ServiceProxyOptions (k8s.io/api core/v1 types.go). kube-apiserver's
 * scheme registers them (core/v1 register.go), so the result of a MutatingAdmissionPolicy JSON patch on one
 * is decoded strictly into its Go type (mutating/patch/json_patch.go: `GetObjectCreater().New`, then the
 * strict serializer's Decode): an unknown field or a value of the wrong type aborts the request. They are
 * no kinds of the OpenAPI the built-in table is made from (they are query parameters there), so
 * `SchemaRegistry.lookupGvk` does not return them: an ApplyConfiguration keeps the deduced schema.
 *
 * Each field carries its Go facts as scripts/schema/go-fields-generate.ts would write them (`s` string,
 * `b` bool, `e` []int32, upper case without `omitempty`): the round trip through the Go type reads them.
 */
const STRING: Atom = { scalar: 'string' };
const BOOLEAN: Atom = { scalar: 'boolean' };
const INTEGER: Atom = { scalar: 'integer' };

const field = (type: Atom, go: string): FieldDef => ({ type, go });
const TYPE_META: [string, FieldDef][] = [
  ['kind', field(STRING, 's')],
  ['apiVersion', field(STRING, 's')],
];
const STREAMS: [string, FieldDef][] = [
  ['stdin', field(BOOLEAN, 'b')],
  ['stdout', field(BOOLEAN, 'b')],
  ['stderr', field(BOOLEAN, 'b')],
  ['tty', field(BOOLEAN, 'b')],
  ['container', field(STRING, 's')],
];
const PATH: [string, FieldDef][] = [['path', field(STRING, 's')]];

const FIELDS: Record<string, [string, FieldDef][]> = {
  // Command []string `json:"command"`: no omitempty.
  PodExecOptions: [...STREAMS, ['command', field({ list: { elem: STRING, listType: 'atomic', keys: [] } }, 'A')]],
  PodAttachOptions: STREAMS,
  PodPortForwardOptions: [['ports', field({ list: { elem: INTEGER, listType: 'atomic', keys: [] } }, 'e')]],
  PodProxyOptions: PATH,
  NodeProxyOptions: PATH,
  ServiceProxyOptions: PATH,
};

const types = new Map<string, ObjectType>();

/** The core/v1 CONNECT options kind `kind` (see above), or undefined. */
export function connectOptionsType(group: string, version: string, kind: string): ObjectType | undefined {
  if (group !== '' || version !== 'v1' || !Object.hasOwn(FIELDS, kind)) return undefined;
  let type = types.get(kind);
  if (type === undefined) {
    const name = `io.k8s.api.core.v1.${kind}`;
    const fields = new Map<string, FieldDef>([...TYPE_META, ...FIELDS[kind]].map(([k, f]) => [internalized(k), f]));
    type = { group, version, kind, source: 'builtin', name, root: { map: { fields, atomic: false, name } } };
    types.set(kind, type);
  }
  return type;
}
