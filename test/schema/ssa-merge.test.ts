import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { applyConfiguration, DEDUCED, SchemaRegistry, type Atom, type FieldDef } from '../../src/schema/index.js';
import { smdMerge } from '../../src/schema/ssa/merge.js';
import { validateTyped } from '../../src/schema/ssa/validate.js';
import { deepFreeze } from '../json/helpers.js';

const validateTypedErrors = (t: Atom, v: JsonValue) => validateTyped(v, t, false);

/** The schema of structured-merge-diff's typed/merge_test.go 'struct grab bag' + 'associative list', built inline. */
const str: Atom = { scalar: 'string' };
const num: Atom = { scalar: 'number' };
const bool: Atom = { scalar: 'boolean' };
const struct = (fields: Record<string, Atom>): Atom => ({
  map: { fields: new Map(Object.entries(fields).map(([k, type]): [string, FieldDef] => [k, { type }])), atomic: false },
});
const set = (elem: Atom): Atom => ({ list: { elem, listType: 'set', keys: [] } });

const element = struct({ key: str, id: num, value: { map: { elem: str, atomic: false } }, bv: bool, nv: num });
const root = struct({
  numeric: num,
  string: str,
  bool,
  setStr: set(str),
  setBool: set(bool),
  setNumeric: set(num),
  list: { list: { elem: element, listType: 'map', keys: ['key', 'id'] } },
  atomicList: { list: { elem: str, listType: 'atomic', keys: [] } },
});

function merge(lhs: string, rhs: string): JsonValue | undefined {
  const { value, errors } = smdMerge(JSON.parse(lhs), JSON.parse(rhs), root);
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  return value;
}

describe('structured-merge-diff merge', () => {
  // SMD's own merge_test.go triplets (this schema's) run from data in smd.test.ts.

  it('keeps the null/empty distinction of the patch for leaves and empty containers', () => {
    expect(merge('{"atomicList":["a"]}', '{"atomicList":null}')).toEqual({ atomicList: null });
    expect(merge('{"setStr":["a"]}', '{"setStr":null}')).toEqual({ setStr: ['a'] });
    expect(merge('{}', '{"setStr":[]}')).toEqual({ setStr: [] });
    expect(merge('{"string":"x"}', '{"string":null}')).toEqual({ string: null });
  });

  it('reports duplicate keys in the patch and items without a key', () => {
    const dup = smdMerge({}, JSON.parse('{"list":[{"key":"a","id":1},{"key":"a","id":1}]}'), root);
    expect(dup.errors).toEqual([{ path: '.list', message: 'duplicate entries for key [id=1,key="a"]' }]);
    const nokey = smdMerge({}, JSON.parse('{"list":[{"nv":1}]}'), root);
    expect(nokey.errors[0].message).toBe(
      'element 0: associative list with keys has an element that omits all key fields ["key" "id"] (and doesn\'t have default values for any key fields)',
    );
    // Omitting some of the keys makes another entry (SMD v6.3.0 optional map keys): [key="a"] is not [id=1,key="a"].
    const partial = smdMerge(JSON.parse('{"list":[{"key":"a","id":1,"nv":1}]}'), JSON.parse('{"list":[{"key":"a","nv":2},{"key":"a","nv":3}]}'), root);
    expect(partial.errors).toEqual([{ path: '.list', message: 'duplicate entries for key [key="a"]' }]);
    const other = smdMerge(JSON.parse('{"list":[{"key":"a","id":1,"nv":1}]}'), JSON.parse('{"list":[{"key":"a","nv":2}]}'), root);
    expect(other.value).toEqual({ list: [{ key: 'a', id: 1, nv: 1 }, { key: 'a', nv: 2 }] });
  });

  it('tells items apart by their path element text: keys of different JSON types, map-valued keys', () => {
    const byName = { list: { elem: struct({ name: DEDUCED, v: str }), listType: 'map' as const, keys: ['name'] } };
    const t = struct({}) as any;
    t.map.fields.set('items', { type: byName });
    const m = (lhs: JsonValue, rhs: JsonValue) => smdMerge(lhs, rhs, t);
    // "1" and 1 are different keys, 1 and 1.0 the same one (SMD compares numbers as JS does)
    expect(m({ items: [{ name: 1, v: 'a' }] }, { items: [{ name: '1', v: 'b' }, { name: 1.0, v: 'c' }] }).value).toEqual({
      items: [{ name: '1', v: 'b' }, { name: 1, v: 'c' }],
    });
    // a map as key value: compared by its text, never confused with a string that reads the same
    const text = '[name=a="b"]';
    const r = m({ items: [{ name: { a: 'b' }, v: 'x' }, { name: text, v: 'y' }] }, { items: [{ name: { a: 'b' }, v: 'z' }] });
    expect(r.errors).toEqual([]);
    expect(r.value).toEqual({ items: [{ name: { a: 'b' }, v: 'z' }, { name: text, v: 'y' }] });
    const dup = m({}, { items: [{ name: { a: 'b' } }, { name: { a: 'b' } }, { name: 'a="b"' }] });
    expect(dup.errors).toEqual([{ path: '.items', message: 'duplicate entries for key [name=a="b"]' }]);
    expect(validateTypedErrors(t, { items: [{ name: { a: 'b' } }, { name: 'a="b"' }, { name: { a: 'b' } }] })).toEqual([
      { path: '.items', message: 'duplicate entries for key [name=a="b"]' },
    ]);
  });

  it('tells items of lists with several key fields apart, with key defaults and map-valued keys', () => {
    const ports = { list: { elem: struct({ port: num, proto: str, v: str }), listType: 'map' as const, keys: ['port', 'proto'] } };
    const t = struct({}) as any;
    t.map.fields.set('ports', { type: ports });
    const withDefault = structuredClone(ports) as any;
    withDefault.list.elem = { map: { fields: new Map<string, FieldDef>([['port', { type: num }], ['proto', { type: str, default: 'TCP' }], ['v', { type: str }]]), atomic: false } };
    const td = struct({}) as any;
    td.map.fields.set('ports', { type: withDefault });
    const lhs = { ports: [{ port: 80, proto: 'TCP', v: 'a' }, { port: 80, proto: 'UDP', v: 'b' }, { port: '80', proto: 'TCP', v: 'c' }] };
    expect(smdMerge(lhs, { ports: [{ port: 80, proto: 'UDP', v: 'x' }] }, t).value).toEqual({
      ports: [{ port: 80, proto: 'TCP', v: 'a' }, { port: 80, proto: 'UDP', v: 'x' }, { port: '80', proto: 'TCP', v: 'c' }],
    });
    expect(smdMerge(lhs, { ports: [{ port: 80, v: 'y' }] }, td).value).toEqual({
      ports: [{ port: 80, proto: 'TCP', v: 'y' }, { port: 80, proto: 'UDP', v: 'b' }, { port: '80', proto: 'TCP', v: 'c' }],
    });
    expect(smdMerge({}, { ports: [{ port: 80, proto: 'TCP' }, { port: 80 }] }, td).errors).toEqual([
      { path: '.ports', message: 'duplicate entries for key [port=80,proto="TCP"]' },
    ]);
    // a map-valued key with the other key omitted is its own entry; an item without any key fails
    expect(smdMerge({ ports: [{ port: { n: 1 }, proto: 'TCP' }] }, { ports: [{ port: { n: 1 }, v: 'x' }] }, t).value).toEqual({
      ports: [{ port: { n: 1 }, proto: 'TCP' }, { port: { n: 1 }, v: 'x' }],
    });
    const bad = smdMerge({}, { ports: [{ v: 'x' }] }, t);
    expect(bad.errors[0].message).toBe('element 0: associative list with keys has an element that omits all key fields ["port" "proto"] (and doesn\'t have default values for any key fields)');
    expect(validateTypedErrors(t, { ports: [{ v: 'x' }] })[0].message).toBe(bad.errors[0].message);
  });

  it('never modifies its inputs and shares what the patch does not touch', () => {
    const lhs = deepFreeze(JSON.parse('{"list":[{"key":"a","id":1,"value":{"x":"1"}},{"key":"b","id":2}],"setStr":["q"]}'));
    const rhs = deepFreeze(JSON.parse('{"list":[{"key":"b","id":2,"bv":true}]}'));
    const out = merge(JSON.stringify(lhs), JSON.stringify(rhs));
    const { value } = smdMerge(lhs, rhs, root);
    expect(value).toEqual(out);
    expect((value as any).setStr).toBe(lhs.setStr);
    expect((value as any).list[0]).toBe(lhs.list[0]);
  });
});

describe('applyConfiguration on built-in kinds', () => {
  const registry = SchemaRegistry.builtin();
  const pod = registry.lookup('v1', 'Pod')!;
  const deployment = registry.lookup('apps/v1', 'Deployment')!;
  const livePod: any = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { app: 'a' } },
    spec: {
      containers: [
        { name: 'app', image: 'app:1', ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }] },
        { name: 'log', image: 'log:1' },
      ],
    },
  };

  it('uses the schema default of a key field an item omits (ContainerPort.protocol = TCP)', () => {
    const r = applyConfiguration(pod, livePod, { spec: { containers: [{ name: 'app', ports: [{ containerPort: 80, hostPort: 8080 }] }] } });
    expect(r.ok && (r.object as any).spec.containers[0].ports).toEqual([{ containerPort: 80, protocol: 'TCP', name: 'http', hostPort: 8080 }]);
  });

  it('orders list-map items like SMD: live-only items first in their order, patch items in patch order', () => {
    const names = (patch: JsonValue) => {
      const r = applyConfiguration(pod, livePod, patch);
      if (!r.ok) throw r.error;
      return (r.object as any).spec.containers.map((c: any) => c.name);
    };
    // After the shared "app", the live-only "log" comes before the new "sidecar".
    expect(names({ spec: { containers: [{ name: 'app' }, { name: 'sidecar', image: 's:1' }] } })).toEqual(['app', 'log', 'sidecar']);
    // A new item the patch names before a shared one is placed before it.
    expect(names({ spec: { containers: [{ name: 'sidecar', image: 's:1' }, { name: 'log' }] } })).toEqual(['app', 'sidecar', 'log']);
    expect(names({ spec: { containers: [{ name: 'sidecar', image: 's:1' }] } })).toEqual(['app', 'log', 'sidecar']);
    // Shared items follow the patch's order.
    expect(names({ spec: { containers: [{ name: 'log' }, { name: 'app' }] } })).toEqual(['log', 'app']);
  });

  it('merges labels key by key and leaves the rest of the object alone', () => {
    const r = applyConfiguration(pod, livePod, { metadata: { labels: { team: 'x' } } });
    expect(r.ok && r.object).toEqual({ ...livePod, metadata: { name: 'p', labels: { app: 'a', team: 'x' } } });
    expect(r.ok && r.object.spec).toBe(livePod.spec);
  });

  it('names fields the schema does not declare with SMD paths', () => {
    const r = applyConfiguration(pod, livePod, { spec: { containers: [{ name: 'app', imagex: 'x' }] } });
    expect(!r.ok && r.error.message).toBe(
      'failed to convert patch object to typed object: .spec.containers[name="app"].imagex: field not declared in schema',
    );
    expect(!r.ok && r.error.stage).toBe('patch');
  });

  it('lists several conversion errors the way SMD prints them', () => {
    const r = applyConfiguration(deployment, { apiVersion: 'apps/v1', kind: 'Deployment' }, {
      spec: { replicas: 'three', paused: 'yes', minReadySeconds: { a: 1 } },
    });
    expect(!r.ok && r.error.message).toBe(
      'failed to convert patch object to typed object: errors:\n' +
        '  .spec.replicas: expected numeric (int or float), got string\n' +
        '  .spec.paused: expected boolean, got &{yes}\n' +
        '  .spec.minReadySeconds: expected numeric (int or float), got map[string]interface {}',
    );
  });

  it('refuses duplicate keys in the patch', () => {
    const r = applyConfiguration(pod, livePod, { spec: { containers: [{ name: 'a' }, { name: 'a' }] } });
    expect(!r.ok && r.error.message).toBe(
      'failed to convert patch object to typed object: .spec.containers: duplicate entries for key [name="a"]',
    );
  });

  it('refuses every atomic value the patch sets, with index paths, in patch order', () => {
    const r = applyConfiguration(deployment, { apiVersion: 'apps/v1', kind: 'Deployment', spec: {} }, {
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { spec: { containers: [{ name: 'c', command: ['sh'] }], nodeSelector: { disk: 'ssd' } } },
      },
    });
    expect(!r.ok && r.error.message).toBe(
      'invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ' +
        '.spec.selector, .spec.template.spec.containers[0].command, .spec.template.spec.nodeSelector',
    );
  });

  it('lets null through the atomic check (SMD then stores the null: the way an ApplyConfiguration can clear a leaf)', () => {
    const live = { apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 2, selector: { matchLabels: { a: 'b' } } } };
    const r = applyConfiguration(deployment, live, { spec: { selector: null, replicas: null } });
    expect(r.ok && r.object.spec).toEqual({ replicas: null, selector: null });
  });

  it('reports a live object that does not fit its schema', () => {
    const r = applyConfiguration(pod, { apiVersion: 'v1', kind: 'Pod', spec: { bogus: 1 } }, { metadata: { labels: { a: 'b' } } });
    expect(!r.ok && r.error.message).toBe('failed to convert original object to typed object: .spec.bogus: field not declared in schema');
  });

  it('stamps the object apiVersion/kind on the patch (a different value in the patch is overwritten)', () => {
    const r = applyConfiguration(pod, livePod, { apiVersion: 'v2', kind: 'Other', metadata: { labels: { b: 'c' } } });
    expect(r.ok && [r.object.apiVersion, r.object.kind]).toEqual(['v1', 'Pod']);
  });

  it('answers bad input with an error value, never an exception', () => {
    expect(applyConfiguration(pod, 'x' as JsonValue, {}).ok).toBe(false);
    expect(applyConfiguration(pod, livePod, [] as JsonValue).ok).toBe(false);
    const r = applyConfiguration(pod, livePod, { spec: { containers: 'nope' } });
    expect(!r.ok && r.error.message).toBe('failed to convert patch object to typed object: .spec.containers: expected list, got &{nope}');
  });

  it('chains: the result of one apply is the live object of the next (its check is not repeated)', () => {
    const first = applyConfiguration(pod, livePod, { spec: { containers: [{ name: 'sidecar', image: 's:1' }] } });
    if (!first.ok) throw first.error;
    const second = applyConfiguration(pod, first.object, { spec: { containers: [{ name: 'sidecar', image: 's:2' }] } });
    if (!second.ok) throw second.error;
    expect((second.object as any).spec.containers.map((c: any) => c.image)).toEqual(['app:1', 'log:1', 's:2']);
    const invalid = { apiVersion: 'v1', kind: 'Pod', spec: { bogus: 1 } };
    expect(applyConfiguration(pod, invalid, {}).ok).toBe(false);
    expect(applyConfiguration(pod, invalid, {}).ok).toBe(false);
  });

  it('with `checked`, looks at the live object only where it differs from the checked version', () => {
    const first = applyConfiguration(pod, livePod, { metadata: { labels: { b: 'c' } } });
    if (!first.ok) throw first.error;
    const checked: any = first.object;
    // A JSON patch between two apply configurations adds a container with a bad image: still reported.
    const edited = { ...checked, spec: { ...checked.spec, containers: [...checked.spec.containers, { name: 'x', image: 5 }] } };
    const r = applyConfiguration(pod, edited, { metadata: { labels: { d: 'e' } } }, { checked });
    expect(!r.ok && r.error.message).toBe('failed to convert original object to typed object: .spec.containers[name="x"].image: expected string, got &value.valueUnstructured{Value:5}');
    const undeclared = { ...checked, spec: { ...checked.spec, bogus: 1 } };
    const u = applyConfiguration(pod, undeclared, {}, { checked });
    expect(!u.ok && u.error.message).toBe('failed to convert original object to typed object: .spec.bogus: field not declared in schema');
    // An edit that keeps the object valid merges as without the option.
    const valid = { ...checked, spec: { ...checked.spec, containers: [{ name: 'new', image: 'n' }, ...checked.spec.containers] } };
    const v = applyConfiguration(pod, valid, { metadata: { labels: { d: 'e' } } }, { checked });
    const plain = applyConfiguration(pod, valid, { metadata: { labels: { d: 'e' } } });
    expect(v.ok && v.object).toEqual(plain.ok && plain.object);
  });

  it('with `checked`, counts the fields the checked version has as declared (a newer schema\'s fields)', () => {
    const sent: any = { ...livePod, spec: { ...livePod.spec, futureField: { a: 1 } } };
    const edited = { ...sent, spec: { ...sent.spec, priorityClassName: 'high' } };
    const r = applyConfiguration(pod, edited, { metadata: { labels: { b: 'c' } } }, { checked: sent });
    expect(r.ok && (r.object as any).spec.futureField).toEqual({ a: 1 });
    const changedValue = { ...sent, spec: { ...sent.spec, futureField: { a: 2 } } };
    expect(applyConfiguration(pod, changedValue, {}, { checked: sent }).ok).toBe(true);
    const other = { ...sent, spec: { ...sent.spec, otherFutureField: 1 } };
    const o = applyConfiguration(pod, other, {}, { checked: sent });
    expect(!o.ok && o.error.message).toBe('failed to convert original object to typed object: .spec.otherFutureField: field not declared in schema');
    expect(applyConfiguration(pod, edited, {}).ok).toBe(false);
  });

  it('gives back the live object itself when the merge changes nothing', () => {
    const same = applyConfiguration(pod, livePod, { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'log', image: 'log:1' }] } });
    expect(same.ok && same.object).toBe(livePod);
    const emptyList = applyConfiguration(pod, livePod, { spec: { containers: [] } });
    expect(emptyList.ok && emptyList.object).toBe(livePod);
    const changed = applyConfiguration(pod, livePod, { spec: { containers: [{ name: 'log', image: 'log:2' }] } });
    expect(changed.ok && changed.object).not.toBe(livePod);
    expect(changed.ok && (changed.object as any).spec.containers[0]).toBe(livePod.spec.containers[0]);
  });

  it('treats __proto__ keys as data', () => {
    const patch = JSON.parse('{"metadata":{"labels":{"__proto__":"x"}}}');
    const r = applyConfiguration(pod, livePod, patch);
    expect(r.ok && Object.keys((r.object as any).metadata.labels)).toEqual(['app', '__proto__']);
    expect(({} as any).x).toBeUndefined();
  });
});

describe('deduced schema for kinds nobody knows', () => {
  const registry = SchemaRegistry.builtin();
  const type = registry.lookupOrDeduced({ group: 'example.com', version: 'v1', kind: 'Widget' });

  it('merges maps key by key, replaces lists, and has nothing atomic to refuse', () => {
    expect(type.source).toBe('deduced');
    const live = { apiVersion: 'example.com/v1', kind: 'Widget', spec: { a: 1, tags: ['x', 'y'], nested: { keep: true } } };
    const r = applyConfiguration(type, live, { spec: { tags: ['z'], nested: { add: 1 }, b: 'new' } });
    expect(r.ok && r.object).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      spec: { a: 1, tags: ['z'], nested: { keep: true, add: 1 }, b: 'new' },
    });
  });

  it('takes the patch value when a value changes between scalar and map (SMD >= v4.3.0: one valid side suffices)', () => {
    const r = applyConfiguration(type, { spec: { a: { b: 1 } } }, { spec: { a: 'x' } });
    expect(r.ok && r.object.spec).toEqual({ a: 'x' });
    const list = applyConfiguration(type, { spec: { a: [1] } }, { spec: { a: { b: 1 } } });
    expect(list.ok && list.object.spec).toEqual({ a: { b: 1 } });
  });
});

describe('merge order', () => {
  it("keeps the live object's member order and appends the patch's new members in its order", () => {
    const out = merge('{"string":"x","numeric":1,"bool":true}', '{"setStr":["a"],"bool":false,"numeric":2}');
    expect(JSON.stringify(out)).toBe('{"string":"x","numeric":2,"bool":false,"setStr":["a"]}');
  });

  it("reports errors in the live object's member order, then the patch's new members", () => {
    // (a scalar fails only when neither side is valid, so a new member fails only for its own structure)
    const { errors } = smdMerge(JSON.parse('{"string":1,"numeric":"one"}'), JSON.parse('{"list":[{}],"numeric":"two","string":3}'), root);
    expect(errors.map((e) => e.path)).toEqual(['.string', '.string', '.numeric', '.numeric', '.list']);
  });
});
