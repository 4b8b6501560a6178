import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseJson, type JsonValue } from '../../src/json/index.js';
import { SchemaRegistry, strictDecode } from '../../src/schema/index.js';

const registry = SchemaRegistry.builtin();
const deployment = registry.lookup('apps/v1', 'Deployment')!;
const pod = registry.lookup('v1', 'Pod')!;

describe('strict decoding of built-in kinds', () => {
  it('reproduces the JSONPatch vector: the patched object with containerPortZ', () => {
    const name = 'json_patch_test.go/TestJSONPatch/jsonPatch invalid CEL initializer field';
    const file = join(import.meta.dirname, '..', 'vectors', 'map', 'mutation', 'jsonpatch.yaml');
    const v = parseAllDocuments(readFileSync(file, 'utf8'))
      .map((d) => d.toJS())
      .find((d) => d.name === name);
    // The object after the vector's patch (add /spec/template/spec/containers/- {name: x, ports: [{containerPortZ: 8080}]}).
    const patched = structuredClone(v.request.object);
    patched.spec.template.spec.containers.push({ name: 'x', ports: [{ containerPortZ: 8080 }] });
    expect(strictDecode(deployment, patched)?.message).toBe(v.expect.error);
    expect(strictDecode(deployment, v.request.object)).toBeUndefined();
  });

  it('accepts what the API server sends (nulls, empty structs, quantities, timestamps, int-or-string)', () => {
    const obj: JsonValue = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', creationTimestamp: '2026-11-30T10:00:00Z', labels: { a: 'b' } },
      spec: {
        containers: [
          {
            name: 'c',
            resources: { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: 0.5, memory: '1e3' } },
            livenessProbe: { httpGet: { port: 'http', path: '/' } },
            readinessProbe: { httpGet: { port: 8080 } },
          },
        ],
        overhead: null,
        securityContext: {},
      },
      status: {},
    };
    expect(strictDecode(pod, obj)).toBeUndefined();
  });

  it('lists every unknown field, case-sensitively, with list indices', () => {
    const err = strictDecode(pod, { spec: { Containers: [], containers: [{ name: 'a', imagex: 'i' }, { name: 'b', envv: [] }] }, extra: 1 });
    expect(err?.reason).toBe('unknown-fields');
    expect(err?.message).toBe(
      'strict decoding error: unknown field "spec.Containers", unknown field "spec.containers[0].imagex", unknown field "spec.containers[1].envv", unknown field "extra"',
    );
    expect(err?.paths).toEqual(['spec.Containers', 'spec.containers[0].imagex', 'spec.containers[1].envv', 'extra']);
  });

  it('reports the first type mismatch like encoding/json, before unknown fields', () => {
    expect(strictDecode(deployment, { spec: { replicas: '3', bogus: 1 } })?.message).toBe(
      'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    expect(strictDecode(deployment, { spec: { replicas: 1.5 } })?.message).toBe(
      'json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    expect(strictDecode(deployment, parseJson('{"spec":{"replicas":2.0}}'))?.message).toBe(
      'json: cannot unmarshal number 2.0 into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    expect(strictDecode(pod, { spec: { containers: [{ name: 'a', image: 5 }] } })?.message).toBe(
      'json: cannot unmarshal number into Go struct field Container.spec.containers.image of type string',
    );
  });

  it('refuses an integer past its Go field size (encoding/json ParseInt, then OverflowInt), naming the type', () => {
    const fits = parseJson('{"spec":{"replicas":2147483647,"minReadySeconds":-2147483648,"revisionHistoryLimit":0}}');
    expect(strictDecode(deployment, fits)).toBeUndefined();
    expect(strictDecode(deployment, { spec: { replicas: 2147483648 } })?.message).toBe(
      'json: cannot unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    // An int64: exact to the last digit, as the document holds it.
    expect(strictDecode(pod, parseJson('{"spec":{"activeDeadlineSeconds":9223372036854775807}}'))).toBeUndefined();
    expect(strictDecode(pod, parseJson('{"spec":{"activeDeadlineSeconds":9223372036854775808}}'))?.message).toBe(
      'json: cannot unmarshal number 9223372036854775808 into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64',
    );
    // Items of a []int64.
    expect(strictDecode(pod, parseJson('{"spec":{"securityContext":{"supplementalGroups":[1,-10000000000000000000]}}}'))?.message).toBe(
      'json: cannot unmarshal number -10000000000000000000 into Go struct field PodSecurityContext.spec.securityContext.supplementalGroups of type int64',
    );
    expect(strictDecode(pod, { spec: { containers: {} } })?.message).toBe(
      'json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container',
    );
    expect(strictDecode(pod, { spec: 'x' })?.message).toBe('json: cannot unmarshal string into Go struct field Pod.spec of type v1.PodSpec');
    expect(strictDecode(pod, { metadata: { labels: { a: true } } })?.message).toBe(
      'json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.labels of type string',
    );
    expect(strictDecode(pod, [])?.message).toBe('json: cannot unmarshal array into Go value of type v1.Pod');
  });

  it('checks the types that decode themselves (Quantity, Time, IntOrString)', () => {
    const limits = (cpu: JsonValue) => ({ spec: { containers: [{ name: 'a', resources: { limits: { cpu } } }] } });
    expect(strictDecode(pod, limits('abc'))?.message).toBe(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
    expect(strictDecode(pod, limits('5Qi'))?.message).toBe("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    expect(strictDecode(pod, limits('5ki'))?.message).toBe("unable to parse quantity's suffix");
    expect(strictDecode(pod, limits(true))?.reason).toBe('type');
    expect(strictDecode(pod, { metadata: { creationTimestamp: 5 } })?.message).toBe('json: cannot unmarshal number into Go value of type string');
    const ts = (t: string) => strictDecode(pod, { metadata: { creationTimestamp: t } })?.message;
    expect(ts('yesterday')).toBe('parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
    expect(ts('2026-11-30 10:00:00Z')).toBe('parsing time "2026-11-30 10:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 10:00:00Z" as "T"');
    expect(ts('2026-13-01T00:00:00Z')).toBe('parsing time "2026-13-01T00:00:00Z": month out of range');
    expect(ts('2026-02-30T00:00:00Z')).toBe('parsing time "2026-02-30T00:00:00Z": day out of range');
    expect(ts('2026-11-30T10:00:00')).toBe('parsing time "2026-11-30T10:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"');
    expect(ts('2026-11-30T10:00:00Zjunk')).toBe('parsing time "2026-11-30T10:00:00Zjunk": extra text: "junk"');
    expect(ts('2026-11-30T10:00:00.123456+01:00')).toBeUndefined();
    // A metav1.MicroTime (Event.eventTime, Lease renewTime, ...) decodes with time.RFC3339Micro: six digits.
    const event = registry.lookup('events.k8s.io/v1', 'Event')!;
    const micro = (t: string) => strictDecode(event, { eventTime: t })?.message;
    expect(micro('2026-11-30T10:00:00.123456+01:00')).toBeUndefined();
    expect(micro('2026-11-30T10:00:00Z')).toBe('parsing time "2026-11-30T10:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"');
    expect(micro('2026-11-30T10:00:00.123Z')).toBe('parsing time "2026-11-30T10:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"');
    expect(strictDecode(event, { deprecatedLastTimestamp: '2026-11-30T10:00:00Z' })).toBeUndefined();
    const lease = registry.lookup('coordination.k8s.io/v1', 'Lease')!;
    expect(strictDecode(lease, { spec: { renewTime: '2026-11-30T10:00:00Z' } })?.message).toContain('cannot parse "Z" as ".000000"');
    const port = (p: JsonValue) => ({ spec: { containers: [{ name: 'a', livenessProbe: { tcpSocket: { port: p } } }] } });
    expect(strictDecode(pod, port(true))?.message).toBe('json: cannot unmarshal bool into Go value of type int32');
    expect(strictDecode(pod, port(1.5))?.message).toBe('json: cannot unmarshal number 1.5 into Go value of type int32');
  });

  it('lets free-form fields hold anything', () => {
    const rev = registry.lookup('apps/v1', 'ControllerRevision')!;
    expect(strictDecode(rev, { data: { any: [{ thing: 1 }] }, revision: 1 })).toBeUndefined();
  });
});

describe('strict decoding judges what a patch introduced (the accepted object)', () => {
  // A newer API server sends a field our 1.37 schema does not know; it must never turn into a 500.
  const received = (): any => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { a: 'b' } },
    spec: {
      futureField: { anything: [1, 2] },
      containers: [
        { name: 'a', image: 'i', futureContainerField: true, resources: { limits: { cpu: '1' } } },
        { name: 'b', image: 'j' },
      ],
    },
  });

  it('without an accepted object, every unknown field is reported', () => {
    expect(strictDecode(pod, received())?.paths).toEqual(['spec.futureField', 'spec.containers[0].futureContainerField']);
  });

  it('accepts fields the received object has, also in containers the patch rebuilt', () => {
    const obj = received();
    // what a JSON patch does: copy the containers on the way to the change, share the rest
    const spec = { ...obj.spec, priorityClassName: 'high', containers: [{ ...obj.spec.containers[0], imagePullPolicy: 'Always' }, obj.spec.containers[1]] };
    const patched = { ...obj, spec };
    expect(strictDecode(pod, patched, obj)).toBeUndefined();
    // the same field introduced where the received object lacks it is the patch's
    const spec2 = { ...obj.spec, containers: [obj.spec.containers[0], { ...obj.spec.containers[1], futureContainerField: true }] };
    expect(strictDecode(pod, { ...obj, spec: spec2 }, obj)?.message).toBe('strict decoding error: unknown field "spec.containers[1].futureContainerField"');
  });

  it('still reports what the patch introduced: unknown fields, wrong types, bad quantities', () => {
    const obj = received();
    const withField = { ...obj, spec: { ...obj.spec, containers: [...obj.spec.containers, { name: 'x', ports: [{ containerPortZ: 1 }] }] } };
    expect(strictDecode(pod, withField, obj)?.message).toBe('strict decoding error: unknown field "spec.containers[2].ports[0].containerPortZ"');
    const withType = { ...obj, spec: { ...obj.spec, priority: '5' } };
    expect(strictDecode(pod, withType, obj)?.message).toBe('json: cannot unmarshal string into Go struct field PodSpec.spec.priority of type int32');
    const c0 = obj.spec.containers[0];
    const withQuantity = { ...obj, spec: { ...obj.spec, containers: [{ ...c0, resources: { limits: { cpu: 'lots' } } }, obj.spec.containers[1]] } };
    expect(strictDecode(pod, withQuantity, obj)?.reason).toBe('type');
  });

  it('a float literal written into a new container is judged even where the accepted value is the same number', () => {
    const accepted = parseJson('{"spec":{"priority":2}}');
    const patched = parseJson('{"spec":{"priority":2.0}}');
    expect(strictDecode(pod, patched, accepted)?.message).toBe('json: cannot unmarshal number 2.0 into Go struct field PodSpec.spec.priority of type int32');
  });

  it('items shifted by an insertion are matched by identity, not index', () => {
    const obj = received();
    const shifted = { ...obj, spec: { ...obj.spec, containers: [{ name: 'new', image: 'n' }, ...obj.spec.containers] } };
    expect(strictDecode(pod, shifted, obj)).toBeUndefined();
  });
});
