import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { applyConfiguration, CrdError, SchemaRegistry } from '../../src/schema/index.js';

/** A CRD exercising every schema extension the merge cares about. */
const widgetCrd: any = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', plural: 'widgets' },
    scope: 'Namespaced',
    versions: [
      { name: 'v1alpha1', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  replicas: { type: 'integer' },
                  port: { 'x-kubernetes-int-or-string': true },
                  ports: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['port', 'protocol'],
                    items: {
                      type: 'object',
                      required: ['port'],
                      properties: {
                        port: { type: 'integer' },
                        protocol: { type: 'string', default: 'TCP' },
                        name: { type: 'string' },
                      },
                    },
                  },
                  tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
                  args: { type: 'array', items: { type: 'string' } },
                  selector: {
                    type: 'object',
                    'x-kubernetes-map-type': 'atomic',
                    properties: { app: { type: 'string' } },
                  },
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                  config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  anything: { 'x-kubernetes-preserve-unknown-fields': true },
                  extra: {
                    type: 'object',
                    'x-kubernetes-preserve-unknown-fields': true,
                    properties: { known: { type: 'string' } },
                  },
                  template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
                  owners: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['id'],
                    items: { type: 'object', properties: { id: { type: 'string' }, role: { type: 'string' } } },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

const registry = SchemaRegistry.builtin().withCrd(widgetCrd);
const widget = registry.lookup('example.com/v1', 'Widget')!;

const live = {
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', labels: { a: '1' } },
  spec: {
    replicas: 1,
    port: 'http',
    ports: [
      { port: 80, protocol: 'TCP', name: 'http' },
      { port: 53, protocol: 'UDP', name: 'dns' },
    ],
    tags: ['a', 'b'],
    args: ['--x'],
    labels: { env: 'prod' },
    config: { nested: { keep: 1 }, list: [1, 2] },
    extra: { known: 'k', free: { x: 1 } },
    template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { k: 'v' } },
    owners: [{ id: 'o1', role: 'admin' }],
  },
};

function apply(patch: JsonValue) {
  return applyConfiguration(widget, live, patch);
}

describe('CRD schemas', () => {
  it('serves only served versions, and is a new registry each time', () => {
    expect(widget).toMatchObject({ group: 'example.com', version: 'v1', kind: 'Widget', source: 'crd', name: 'widgets.example.com' });
    expect(registry.lookup('example.com/v1alpha1', 'Widget')).toBeUndefined();
    expect(SchemaRegistry.builtin().lookup('example.com/v1', 'Widget')).toBeUndefined();
    expect(registry.crdKinds()).toEqual(['example.com/v1/Widget']);
    expect(registry.lookup('v1', 'Pod')?.source).toBe('builtin');
  });

  it('merges a list-map by its keys, using the key default when an item omits it', () => {
    const r = apply({ spec: { ports: [{ port: 80, name: 'web' }, { port: 8080 }] } });
    if (!r.ok) throw r.error;
    expect((r.object as any).spec.ports).toEqual([
      { port: 80, protocol: 'TCP', name: 'web' },
      { port: 53, protocol: 'UDP', name: 'dns' },
      { port: 8080 },
    ]);
  });

  it('needs a key: an item that omits every key field without a default has none', () => {
    const r = apply({ spec: { owners: [{ role: 'viewer' }] } });
    expect(!r.ok && r.error.message).toBe(
      'failed to convert patch object to typed object: .spec.owners: element 0: associative list with keys has an element that omits all key fields ["id"] (and doesn\'t have default values for any key fields)',
    );
  });

  it('unions sets, merges granular maps and preserve-unknown-fields objects key by key', () => {
    const r = apply({
      spec: { tags: ['c', 'a'], labels: { tier: 'web' }, config: { nested: { add: 2 }, other: true }, extra: { free: { y: 2 }, known: 'k2' } },
    });
    if (!r.ok) throw r.error;
    const spec = (r.object as any).spec;
    expect(spec.tags).toEqual(['c', 'a', 'b']); // SMD: new c before the shared a it precedes, live-only b after
    expect(spec.labels).toEqual({ env: 'prod', tier: 'web' });
    expect(spec.config).toEqual({ nested: { keep: 1, add: 2 }, list: [1, 2], other: true });
    expect(spec.extra).toEqual({ known: 'k2', free: { x: 1, y: 2 } });
  });

  it('accepts an int or a string for x-kubernetes-int-or-string and replaces it', () => {
    const r = apply({ spec: { port: 8080 } });
    expect(r.ok && (r.object as any).spec.port).toBe(8080);
  });

  it('merges an embedded resource with its implicit apiVersion/kind/metadata', () => {
    const r = apply({ spec: { template: { metadata: { labels: { x: 'y' } }, data: { k2: 'v2' } } } });
    if (!r.ok) throw r.error;
    expect((r.object as any).spec.template).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', labels: { x: 'y' } },
      data: { k: 'v', k2: 'v2' },
    });
  });

  it('refuses atomic lists (no list-type = atomic), atomic maps, and lists directly under preserve-unknown-fields', () => {
    const r = apply({ spec: { args: ['--y'], selector: { app: 'x' }, anything: ['a-list'] } });
    expect(!r.ok && r.error.message).toBe(
      'invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.args, .spec.selector, .spec.anything',
    );
    // A typed object with preserve-unknown-fields is still a map.
    const notMap = apply({ spec: { config: ['x'] } });
    expect(!notMap.ok && notMap.error.message).toBe('failed to convert patch object to typed object: .spec.config: expected map, got &{[x]}');
    // Values inside a preserve-unknown-fields object are not inspected: its lists are replaced.
    const inner = apply({ spec: { config: { list: [3] } } });
    expect(inner.ok && (inner.object as any).spec.config.list).toEqual([3]);
  });

  it('rejects unknown fields outside preserve-unknown-fields subtrees (CRD schemas do not preserve them)', () => {
    const r = apply({ spec: { bogus: 1 } });
    expect(!r.ok && r.error.message).toBe('failed to convert patch object to typed object: .spec.bogus: field not declared in schema');
    const top = apply({ status: { ready: true } });
    expect(!r.ok && !top.ok && top.error.message).toBe('failed to convert patch object to typed object: .status: field not declared in schema');
  });

  it('takes unknown fields below a preserve-unknown-fields node, even in a descendant with properties', () => {
    // kube-openapi schemaconv (pkg/schemaconv/smd.go push, openapi.go visitSpec): once a node says
    // x-kubernetes-preserve-unknown-fields, every descendant converts with it, so a nested object with
    // properties gets the deduced element type too; arrays' items and additionalProperties alike.
    const crd = structuredClone(widgetCrd);
    crd.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.extra.properties.nested = {
      type: 'object',
      properties: { a: { type: 'string' } },
    };
    crd.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.extra.properties.items = {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['id'],
      items: { type: 'object', properties: { id: { type: 'string' } } },
    };
    const type = SchemaRegistry.builtin().withCrd(crd).lookup('example.com/v1', 'Widget')!;
    const obj = { ...live, spec: { ...live.spec, extra: { known: 'k', nested: { a: 'x' }, items: [{ id: 'i' }] } } };
    const r = applyConfiguration(type, obj, { spec: { extra: { nested: { b: 'y' }, items: [{ id: 'i', more: { z: 1 } }] } } });
    if (!r.ok) throw r.error;
    expect((r.object as any).spec.extra).toEqual({ known: 'k', nested: { a: 'x', b: 'y' }, items: [{ id: 'i', more: { z: 1 } }] });
    // Outside such a subtree a nested object with properties still refuses them.
    const outside = applyConfiguration(type, obj, { spec: { owners: [{ id: 'o1', bogus: 1 }] } });
    expect(!outside.ok && outside.error.message).toBe('failed to convert patch object to typed object: .spec.owners[id="o1"].bogus: field not declared in schema');
  });

  it('gives the keys no property declares the element type kube-openapi gives them', () => {
    // kube-openapi schemaconv parseObject: `additionalProperties: true` (allowed beside properties by the
    // CRD validation) takes any key as a deduced value, `additionalProperties: false` none; an object
    // without properties takes any key, but the root and an embedded resource always have properties
    // (apiVersion, kind and metadata, added by the apiserver's OpenAPI builder) and take none.
    const withSpec = (spec: JsonValue, root: Record<string, JsonValue> = {}) => {
      const crd = structuredClone(widgetCrd);
      crd.spec.versions = [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec }, ...root } } }];
      return SchemaRegistry.builtin().withCrd(crd).lookup('example.com/v1', 'Widget')!;
    };
    const obj = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } };
    const open = withSpec({ type: 'object', additionalProperties: true, properties: { a: { type: 'string' } } });
    const merged = applyConfiguration(open, { ...obj, spec: { a: 'x' } }, { spec: { b: { c: [1] } } });
    expect(merged.ok && (merged.object as any).spec).toEqual({ a: 'x', b: { c: [1] } });
    const closed = withSpec({ type: 'object', additionalProperties: false });
    const refused = applyConfiguration(closed, obj, { spec: { x: 1 } });
    expect(!refused.ok && refused.error.message).toBe('failed to convert patch object to typed object: .spec.x: field not declared in schema');
    const bareRoot = SchemaRegistry.builtin().withCrd({ ...structuredClone(widgetCrd), spec: { ...widgetCrd.spec, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] } }).lookup('example.com/v1', 'Widget')!;
    const atRoot = applyConfiguration(bareRoot, obj, { spec: { x: 1 } });
    expect(!atRoot.ok && atRoot.error.message).toBe('failed to convert patch object to typed object: .spec: field not declared in schema');
    const preservingRoot = withSpec({ type: 'object' }, { 'x-kubernetes-preserve-unknown-fields': true });
    const kept = applyConfiguration(preservingRoot, obj, { status: { ready: true } });
    expect(kept.ok && (kept.object as any).status).toEqual({ ready: true });
  });

  it('takes no key default from a `default: null` (Go nil: SMD keys the item without that field)', () => {
    const crd = structuredClone(widgetCrd);
    crd.spec.versions = [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  items: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['a', 'b'],
                    items: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'string', nullable: true, default: null }, v: { type: 'string' } } },
                  },
                },
              },
            },
          },
        },
      },
    ];
    const type = SchemaRegistry.builtin().withCrd(crd).lookup('example.com/v1', 'Widget')!;
    const obj = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { items: [{ a: 1, b: null, v: 'x' }] } };
    // The live item's key is a=1,b=null (b is there, null); the patch item's is a=1: two entries.
    const r = applyConfiguration(type, obj, { spec: { items: [{ a: 1, v: 'y' }] } });
    expect(r.ok && (r.object as any).spec.items).toEqual([
      { a: 1, b: null, v: 'x' },
      { a: 1, v: 'y' },
    ]);
  });

  it('adds apiVersion, kind and metadata (ObjectMeta) to the root', () => {
    const r = apply({ metadata: { annotations: { n: 'm' }, labels: { b: '2' } } });
    expect(r.ok && r.object.metadata).toEqual({ name: 'w', labels: { a: '1', b: '2' }, annotations: { n: 'm' } });
    const bad = apply({ metadata: { label: {} } });
    expect(!bad.ok && bad.error.message).toBe('failed to convert patch object to typed object: .metadata.label: field not declared in schema');
  });
});

describe('malformed CRDs', () => {
  const base = SchemaRegistry.builtin();
  const withSchema = (schema: JsonValue) => ({
    ...widgetCrd,
    spec: { ...widgetCrd.spec, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
  });
  const cases: [string, JsonValue, string][] = [
    ['not an object', 'nope', 'CustomResourceDefinition: expected an object'],
    ['v1beta1', { ...widgetCrd, apiVersion: 'apiextensions.k8s.io/v1beta1' }, 'apiVersion: unsupported value "apiextensions.k8s.io/v1beta1"'],
    ['no group', { ...widgetCrd, spec: { ...widgetCrd.spec, group: '' } }, 'spec.group: required non-empty string'],
    ['no kind', { ...widgetCrd, spec: { ...widgetCrd.spec, names: {} } }, 'spec.names.kind: required non-empty string'],
    ['no versions', { ...widgetCrd, spec: { ...widgetCrd.spec, versions: [] } }, 'spec.versions: required non-empty list'],
    ['no schema', { ...widgetCrd, spec: { ...widgetCrd.spec, versions: [{ name: 'v1', served: true, storage: true }] } }, 'spec.versions[0].schema.openAPIV3Schema: required object'],
    ['root not object', withSchema({ type: 'string' }), 'spec.versions[0].schema.openAPIV3Schema.type: the root schema must be of type object'],
    ['bad type', withSchema({ type: 'object', properties: { a: { type: 'thing' } } }), 'openAPIV3Schema.properties.a.type: unsupported type "thing"'],
    ['array without items', withSchema({ type: 'object', properties: { a: { type: 'array' } } }), 'properties.a.items: required schema object for type array'],
    [
      'list map without keys',
      withSchema({ type: 'object', properties: { a: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { k: { type: 'string' } } } } } }),
      'properties.a.x-kubernetes-list-map-keys: required non-empty list of field names',
    ],
    [
      'key not a property',
      withSchema({
        type: 'object',
        properties: { a: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['z'], items: { type: 'object', properties: { k: { type: 'string' } } } } },
      }),
      'key "z" is not a property of the items',
    ],
    ['bad list type', withSchema({ type: 'object', properties: { a: { type: 'array', 'x-kubernetes-list-type': 'bag', items: { type: 'string' } } } }), 'unsupported value "bag"'],
    ['bad map type', withSchema({ type: 'object', properties: { a: { type: 'object', 'x-kubernetes-map-type': 'weird' } } }), 'unsupported value "weird" (atomic or granular)'],
  ];

  it.each(cases)('%s', (_, crd, message) => {
    expect(() => base.withCrd(crd)).toThrow(CrdError);
    expect(() => base.withCrd(crd)).toThrow(message);
  });

  it('adds the good CRDs of a batch and reports the bad ones', () => {
    const { registry: next, errors } = base.withCrds(['junk', widgetCrd]);
    expect(errors).toHaveLength(1);
    expect(next.lookup('example.com/v1', 'Widget')).toBeDefined();
  });

  it('may not redefine a built-in kind', () => {
    const deployments = { ...widgetCrd, spec: { ...widgetCrd.spec, group: 'apps', names: { kind: 'Deployment' } } };
    expect(() => base.withCrd(deployments)).toThrow('apps/v1 Deployment is a built-in kind');
  });
});
