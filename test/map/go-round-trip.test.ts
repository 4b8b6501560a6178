/**
 * What the next mutation of a built-in object reads after a quantity was written. kube-apiserver decodes a
 * JSON patch's result into the kind's Go type, or converts an ApplyConfiguration's result into it
 * (mutating/dispatcher.go dispatchOne), and the next mutation reads that object encoded again:
 * resource.Quantity keeps its text only when it is canonical (apimachinery api/resource/quantity.go
 * ParseQuantity, `s: str` only for canonical input), so MarshalJSON writes `"1000m"` as `"1"`.
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { parseJson } from '../../src/json/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { applyConfig as ac, jsonPatch, policy, set } from './helpers.js';

const pod = (limits: Record<string, unknown>) =>
  podRequest(
    parseJson(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'i', resources: { limits } }] } })) as any,
    { uid: 'u' },
  );
const readBack = jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"cpu": object.spec.containers[0].resources.limits.cpu, "memory": object.spec.containers[0].resources.limits.memory}}]');
const limitsAc = (cpu: string, memory: string) =>
  ac(`Object{spec: Object.spec{containers: [Object.spec.containers{name: "c", resources: Object.spec.containers.resources{limits: {"cpu": ${cpu}, "memory": ${memory}}}}]}}`);
const limitsJp = (cpu: string, memory: string) =>
  jsonPatch(`[JSONPatch{op: "replace", path: "/spec/containers/0/resources/limits", value: {"cpu": ${cpu}, "memory": ${memory}}}]`);

describe('a quantity a mutation writes, as the next mutation reads it', () => {
  it.each([
    ['"1000m"', '"1024Mi"', '1', '1Gi'],
    ['"0.5"', '"1.5Gi"', '500m', '1536Mi'],
    ['" 250m "', '"2e3"', '250m', '2e3'],
    ['"100m"', '"128Mi"', '100m', '128Mi'],
  ])('cpu %s memory %s: read back as %s and %s', async (cpu, memory, wantCpu, wantMemory) => {
    for (const mutation of [limitsAc(cpu, memory), limitsJp(cpu, memory)]) {
      const r = await evaluate(set(policy('p', [mutation, readBack])), pod({ cpu: '1' }));
      expect(r.allowed).toBe(true);
      if (r.allowed) expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { cpu: wantCpu, memory: wantMemory } });
    }
  });

  it('a number written for a quantity is read back as its canonical text', async () => {
    const r = await evaluate(set(policy('p', [limitsJp('2.0', '0.25'), readBack])), pod({ cpu: '1' }));
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { cpu: '2', memory: '250m' } });
  });

  it('an ApplyConfiguration writing an int past 2^53 keeps every digit (the int64 the converter reads)', async () => {
    const r = await evaluate(set(policy('p', [limitsAc('9007199254740993', '1'), readBack])), pod({ cpu: '1' }));
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { cpu: '9007199254740993', memory: '1' } });
  });

  it('a later policy\'s JSON patch test compares with the canonical text', async () => {
    const second = policy('q', [jsonPatch('[JSONPatch{op: "test", path: "/spec/containers/0/resources/limits/cpu", value: "1"}, JSONPatch{op: "add", path: "/metadata/labels", value: {"tested": "yes"}}]')]);
    const r = await evaluate(set(policy('p', [limitsAc('"1000m"', '"1Gi"')]), second), pod({ cpu: '2' }));
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { tested: 'yes' } });
  });

  it('a quantity no mutation touched is left as received', async () => {
    const r = await evaluate(set(policy('p', [ac('Object{metadata: Object.metadata{annotations: {"a": "b"}}}'), readBack])), pod({ cpu: '1000m', memory: '1024Mi' }));
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { cpu: '1000m', memory: '1024Mi' } });
  });
});

/**
 * A map field a mutation leaves empty. Every map field of the built-in Go types is `omitempty`, so the
 * object the next mutation reads has no such field (encoding/json for a JSON patch, apimachinery
 * converter.go isEmpty for CEL's `object`).
 */
describe('an empty map a mutation leaves, as the next mutation reads it', () => {
  const bare = pod({ cpu: '1' });

  it('a JSON patch cannot add a key under labels an earlier mutation left empty', async () => {
    const mutations = [jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {}}]'), jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels/x", value: "y"}]')];
    const r = await evaluate(set(policy('p', mutations)), bare);
    expect(r.allowed).toBe(false);
    if (!r.allowed) {
      expect(r.status.message).toBe(
        `policy 'p' with binding 'b-p' denied request: JSON Patch: add operation does not apply: doc is missing path: "/metadata/labels/x": missing value`,
      );
    }
    // In one patch the map is there for the next operation: nothing is decoded between them.
    const one = await evaluate(set(policy('p', [jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {}}, JSONPatch{op: "add", path: "/metadata/labels/x", value: "y"}]')])), bare);
    expect(one.allowed).toBe(true);
    if (one.allowed) expect(one.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { x: 'y' } }]);
  });

  it.each([
    ['an ApplyConfiguration', ac('Object{metadata: Object.metadata{annotations: {}}}')],
    ['a JSON patch of {} and null', jsonPatch('[JSONPatch{op: "add", path: "/metadata/annotations", value: {}}, JSONPatch{op: "add", path: "/spec/nodeSelector", value: null}]')],
  ])('%s: has() is false afterwards, and the reply adds nothing', async (_what, mutation) => {
    const read = jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"a": string(has(object.metadata.annotations)), "n": string(has(object.spec.nodeSelector))}}]');
    const r = await evaluate(set(policy('p', [mutation, read])), bare);
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { a: 'false', n: 'false' } }]);
  });

  it('an empty map inside a map value, or a struct left empty, stays', async () => {
    const mutation = ac('Object{spec: Object.spec{containers: [Object.spec.containers{name: "c", securityContext: Object.spec.containers.securityContext{}}]}}');
    const read = jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"s": string(has(object.spec.containers[0].securityContext))}}]');
    const r = await evaluate(set(policy('p', [mutation, read])), bare);
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { s: 'true' } });
  });
});

/**
 * A timestamp a mutation writes. metav1.Time parses RFC 3339 and writes `t.UTC().Format(time.RFC3339)`
 * (null for the zero time); a metav1.MicroTime field (Event.eventTime, Lease renewTime, ...) keeps
 * microseconds and is left as written here.
 */
describe('a timestamp a mutation writes, as the next mutation reads it', () => {
  const readDeletion = jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"t": object.metadata.deletionTimestamp == null ? "null" : string(object.metadata.deletionTimestamp)}}]');

  it.each([
    ['"2024-01-01T10:00:00.5+02:00"', '2024-01-01T08:00:00Z'],
    ['"2024-01-01T08:00:00Z"', '2024-01-01T08:00:00Z'],
    ['"2024-02-29T23:59:59.999999999-00:30"', '2024-03-01T00:29:59Z'],
    ['"0001-01-01T00:00:00Z"', 'null'],
  ])('%s: read back as %s', async (written, want) => {
    for (const mutation of [
      jsonPatch(`[JSONPatch{op: "add", path: "/metadata/deletionTimestamp", value: ${written}}]`),
      ac(`Object{metadata: Object.metadata{deletionTimestamp: ${written}}}`),
    ]) {
      const r = await evaluate(set(policy('p', [mutation, readDeletion])), pod({ cpu: '1' }));
      expect(r.allowed).toBe(true);
      if (r.allowed) expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { t: want } });
    }
  });

  const eventPolicy = (mutations: any[], failurePolicy = 'Fail') => {
    const p = policy('p', mutations, failurePolicy);
    p.spec = { ...p.spec, matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['events'] }] } };
    return p;
  };
  const eventRequest = podRequest(
    parseJson(JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' }, involvedObject: {}, eventTime: '2023-01-01T00:00:00.000000Z' })) as any,
    { kind: { group: '', version: 'v1', kind: 'Event' }, resource: { group: '', version: 'v1', resource: 'events' } },
  );
  const readEventTime = jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"t": object.eventTime}}]');

  it('a MicroTime field (Event.eventTime) is read back in UTC with six fractional digits', async () => {
    for (const mutation of [
      jsonPatch('[JSONPatch{op: "replace", path: "/eventTime", value: "2024-01-01T10:00:00.123456+02:00"}]'),
      ac('Object{eventTime: "2024-01-01T10:00:00.123456+02:00"}'),
    ]) {
      const r = await evaluate(set(eventPolicy([mutation, readEventTime])), eventRequest);
      expect(r.allowed).toBe(true);
      if (r.allowed) expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { t: '2024-01-01T08:00:00.123456Z' } });
    }
  });

  it('a MicroTime without six fractional digits does not decode, as MicroTime.UnmarshalJSON refuses it', async () => {
    const why = 'parsing time "2024-01-01T10:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"';
    // A JSON patch's result that does not decode aborts the request (500) whatever the failurePolicy.
    const jp = await evaluate(set(eventPolicy([jsonPatch('[JSONPatch{op: "replace", path: "/eventTime", value: "2024-01-01T10:00:00Z"}]')], 'Ignore')), eventRequest);
    expect(jp.allowed).toBe(false);
    if (!jp.allowed) expect(jp.status).toMatchObject({ code: 500, message: `Internal error occurred: ${why}` });
    // An ApplyConfiguration's result that does not convert fails the mutation.
    const acr = await evaluate(set(eventPolicy([ac('Object{eventTime: "2024-01-01T10:00:00Z"}')])), eventRequest);
    expect(acr.allowed).toBe(false);
    if (!acr.allowed) expect(acr.status.message).toBe(`policy 'p' with binding 'b-p' denied request: unable to convert unstructured object to /v1, Kind=Event: ${why}`);
  });
});

describe('a quantity of a million digits', () => {
  // Its canonical form came from dividing a power of ten off a bigint at a time: about a minute for this
  // one (the test timed out), where Go's String() takes well under a second. apimachinery prints an
  // exponent past E without a suffix, so 10^1000000 reads back as "10".
  it('is read back in canonical form without stalling the review', async () => {
    const huge = `1${'0'.repeat(1_000_000)}`;
    const request = podRequest(
      parseJson(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', annotations: { q: huge } }, spec: { containers: [{ name: 'c', image: 'i' }] } })) as any,
      { uid: 'u' },
    );
    const copy = ac('Object{spec: Object.spec{containers: [Object.spec.containers{name: "c", resources: Object.spec.containers.resources{limits: {"cpu": object.metadata.annotations.q}}}]}}');
    const read = jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"cpu": object.spec.containers[0].resources.limits.cpu}}]');
    const r = await evaluate(set(policy('p', [copy, read])), request);
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { cpu: '10' } });
  });
});

/**
 * An `omitempty` field a mutation leaves empty, and a null. The Go field decides (k8s.io/api json tags,
 * src/schema/data/go-fields.ts): encoding/json and apimachinery's ToUnstructured leave out `""`, `false`,
 * `0`, a nil pointer and a slice of length 0 when the tag says `omitempty`; a pointer's `false` or `{}`
 * is a value; JSON null decodes to the Go zero value.
 */
describe('an omitempty field a mutation leaves empty, as the next mutation reads it', () => {
  const bare = pod({ cpu: '1' });
  const hasRead = jsonPatch(
    '[JSONPatch{op: "add", path: "/metadata/labels", value: {"nodeName": string(has(object.spec.nodeName)), "hostNetwork": string(has(object.spec.hostNetwork)), "tolerations": string(has(object.spec.tolerations)), "deadline": string(has(object.spec.activeDeadlineSeconds)), "automount": string(has(object.spec.automountServiceAccountToken))}}]',
  );

  it.each([
    [
      'a JSON patch',
      jsonPatch(
        '[JSONPatch{op: "add", path: "/spec/nodeName", value: ""}, JSONPatch{op: "add", path: "/spec/hostNetwork", value: false}, JSONPatch{op: "add", path: "/spec/tolerations", value: []}, JSONPatch{op: "add", path: "/spec/activeDeadlineSeconds", value: null}, JSONPatch{op: "add", path: "/spec/automountServiceAccountToken", value: false}]',
      ),
    ],
    // (tolerations is an atomic list, which an ApplyConfiguration may not set)
    ['an ApplyConfiguration', ac('Object{spec: Object.spec{nodeName: "", hostNetwork: false, automountServiceAccountToken: false}}')],
  ])('%s: "", false and [] are left out, a *bool false stays', async (_what, mutation) => {
    const r = await evaluate(set(policy('p', [mutation, hasRead])), bare);
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    expect(r.patch).toContainEqual({
      op: 'add',
      path: '/metadata/labels',
      value: { nodeName: 'false', hostNetwork: 'false', tolerations: 'false', deadline: 'false', automount: 'true' },
    });
    // The reply carries what the API server would keep: no empty value it would drop.
    expect(r.patch.filter((op: any) => op.path !== '/metadata/labels')).toEqual([{ op: 'add', path: '/spec/automountServiceAccountToken', value: false }]);
  });

  it('a JSON patch test on a field left empty fails, as the field is gone', async () => {
    const second = policy('q', [jsonPatch('[JSONPatch{op: "test", path: "/spec/nodeName", value: ""}, JSONPatch{op: "add", path: "/metadata/labels", value: {"tested": "yes"}}]')]);
    const r = await evaluate(set(policy('p', [jsonPatch('[JSONPatch{op: "add", path: "/spec/nodeName", value: ""}]')]), second), bare);
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toEqual([]);
  });

  it('a null in a field without omitempty reads as the Go zero value', async () => {
    const addPort = jsonPatch(
      '[JSONPatch{op: "add", path: "/spec/containers/0/ports", value: [Object.spec.containers.ports{name: "http", containerPort: 80, hostPort: 8080}]}, JSONPatch{op: "replace", path: "/spec/containers/0/ports/0/containerPort", value: null}, JSONPatch{op: "replace", path: "/spec/containers/0/ports/0/hostPort", value: null}]',
    );
    const read = jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"port": string(object.spec.containers[0].ports[0].containerPort), "host": string(has(object.spec.containers[0].ports[0].hostPort))}}]');
    const r = await evaluate(set(policy('p', [addPort, read])), bare);
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { port: '0', host: 'false' } });
    expect(r.patch).toContainEqual({ op: 'add', path: '/spec/containers/0/ports', value: [{ name: 'http', containerPort: 0 }] });
  });
});

/**
 * Fields Go writes even when zero: one without `omitempty` (a container's `name`, a port's
 * `containerPort`), and a struct value whatever its tag (a container's `resources`, written `{}`). A
 * struct a mutation adds lacks them until the Go round trip writes them; a field a JSON patch removes comes
 * back as its zero value.
 */
describe('a field Go always writes, as the next mutation reads it', () => {
  const bare = pod({ cpu: '1' });
  const read = jsonPatch(
    '[JSONPatch{op: "add", path: "/metadata/labels", value: {"resources": string(has(object.spec.containers[1].resources)), "port": string(object.spec.containers[1].ports[0].containerPort)}}]',
  );

  it.each([
    ['an ApplyConfiguration', ac('Object{spec: Object.spec{containers: [Object.spec.containers{name: "s", image: "x", ports: [Object.spec.containers.ports{name: "h", protocol: "TCP"}]}]}}')],
    ['a JSON patch', jsonPatch('[JSONPatch{op: "add", path: "/spec/containers/-", value: Object.spec.containers{name: "s", image: "x", ports: [Object.spec.containers.ports{name: "h", protocol: "TCP"}]}}]')],
  ])('%s adding a container: its resources are {} and its port 0', async (_what, mutation) => {
    const r = await evaluate(set(policy('p', [mutation, read])), bare);
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { resources: 'true', port: '0' } });
    expect(r.patch).toContainEqual({
      op: 'add',
      path: '/spec/containers/1',
      value: { name: 's', image: 'x', ports: [{ name: 'h', protocol: 'TCP', containerPort: 0 }], resources: {} },
    });
  });

  it('a JSON patch removing a container name: it reads back as ""', async () => {
    const readName = jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"has": string(has(object.spec.containers[0].name)), "name": "[" + object.spec.containers[0].name + "]"}}]');
    const r = await evaluate(set(policy('p', [jsonPatch('[JSONPatch{op: "remove", path: "/spec/containers/0/name"}]'), readName])), bare);
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { has: 'true', name: '[]' } });
  });

  it('what the received object lacked is not added (it is the API server\'s own encoding)', async () => {
    // The Pod here has no status and its container no resources, which the API server would have written.
    const r = await evaluate(set(policy('p', [ac('Object{spec: Object.spec{containers: [Object.spec.containers{name: "c", image: "j"}]}}')])), bare);
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toEqual([{ op: 'replace', path: '/spec/containers/0/image', value: 'j' }]);
  });
});

/**
 * A null map value decodes to the Go zero value of its type (encoding/json leaves a string's zero value
 * for null; Quantity.UnmarshalJSON makes null the zero Quantity, written "0"), and the next mutation reads
 * that value.
 */
describe('a null map value, as the next mutation reads it', () => {
  it.each([
    ['a label', '/metadata/labels/a', 'null', 'object.metadata.labels.a', ''],
    ['a quantity', '/spec/containers/0/resources', '{"limits": {"cpu": dyn(null)}}', 'object.spec.containers[0].resources.limits.cpu', '0'],
  ])('%s', async (_what, path, value, read, want) => {
    const request = podRequest(
      parseJson(JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', labels: { a: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } })) as any,
      { uid: 'u' },
    );
    const readBack = jsonPatch(`[JSONPatch{op: "add", path: "/metadata/annotations", value: {"r": ${read} == null ? "null" : "[" + ${read} + "]"}}]`);
    const r = await evaluate(set(policy('p', [jsonPatch(`[JSONPatch{op: "add", path: "${path}", value: ${value}}]`), readBack])), request);
    expect(r.allowed).toBe(true);
    if (r.allowed) expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/annotations', value: { r: `[${want}]` } });
  });
});

/**
 * An integer past its Go field's size. A JSON patch's result is decoded with encoding/json, which refuses
 * it (`OverflowInt`): the request fails with 500 whatever the failurePolicy. An ApplyConfiguration's result
 * is converted by apimachinery runtime/converter.go fromUnstructured, which converts the int64 with
 * reflect's Convert: an int32 keeps the low 32 bits.
 */
describe('an integer past its Go field size', () => {
  const bare = pod({ cpu: '1' });

  it.each([
    ['/spec/priority', '3000000000', 'PodSpec.spec.priority of type int32'],
    ['/spec/priority', '-2147483649', 'PodSpec.spec.priority of type int32'],
    ['/spec/containers/0/ports', '[{"containerPort": 4294967296}]', 'ContainerPort.spec.containers.ports.containerPort of type int32'],
  ])('a JSON patch writing %s = %s does not decode', async (path, value, where) => {
    const r = await evaluate(set(policy('p', [jsonPatch(`[JSONPatch{op: "add", path: "${path}", value: ${value}}]`)], 'Ignore')), bare);
    expect(r.allowed).toBe(false);
    const literal = /\d+/.exec(value)![0];
    const sign = value.startsWith('-') ? '-' : '';
    if (!r.allowed) expect(r.status).toMatchObject({ code: 500, message: `Internal error occurred: json: cannot unmarshal number ${sign}${literal} into Go struct field ${where}` });
  });

  it('the int32 bounds themselves decode', async () => {
    const r = await evaluate(set(policy('p', [jsonPatch('[JSONPatch{op: "add", path: "/spec/priority", value: 2147483647}, JSONPatch{op: "add", path: "/spec/containers/0/ports", value: [{"containerPort": -2147483648}]}]')])), bare);
    expect(r.allowed).toBe(true);
  });

  it('an ApplyConfiguration writing 3000000000 to an int32 leaves its low 32 bits', async () => {
    const read = jsonPatch('[JSONPatch{op: "add", path: "/metadata/labels", value: {"priority": string(object.spec.priority)}}]');
    const r = await evaluate(set(policy('p', [ac('Object{spec: Object.spec{priority: 3000000000}}'), read])), bare);
    expect(r.allowed).toBe(true);
    if (!r.allowed) return;
    expect(r.patch).toContainEqual({ op: 'add', path: '/metadata/labels', value: { priority: '-1294967296' } });
    expect(r.patch).toContainEqual({ op: 'add', path: '/spec/priority', value: -1294967296 });
    // 2^32 keeps nothing: 0, which `omitempty` does not leave out of a pointer (*int32).
    const zero = await evaluate(set(policy('p', [ac('Object{spec: Object.spec{priority: 4294967296}}')])), bare);
    expect(zero.allowed).toBe(true);
    if (zero.allowed) expect(zero.patch).toEqual([{ op: 'add', path: '/spec/priority', value: 0 }]);
  });
});
