/**
 * An IntOrString decodes a number with encoding/json into its int32 (apimachinery util/intstr/intstr.go
 * UnmarshalJSON): past int32, encoding/json's overflow error names the literal, `json: cannot unmarshal
 * number 3000000000 into Go value of type int32` (decode.go literalStore: `"number " + s`). A JSON patch's
 * result is decoded strictly (json_patch.go: 500); an apply configuration's is converted through JSON
 * (runtime/converter.go: the mutation's error, 403 under failurePolicy Fail).
 */
import { describe, expect, it } from 'vitest';
import { evaluate } from '../../src/engine/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { applyConfig, jsonPatch, policy, set } from './helpers.js';

const request = podRequest(
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
  { uid: 'u-1', userInfo: {} },
);

const OVERFLOW = 'json: cannot unmarshal number 3000000000 into Go value of type int32';

describe('an IntOrString past int32', () => {
  it('in a JSON patch fails decoding with the literal in the message', async () => {
    const r = await evaluate(set(policy('a', [jsonPatch('[JSONPatch{op: "add", path: "/spec/containers/0/livenessProbe", value: {"httpGet": {"port": 3000000000}}}]')])), request);
    expect(r.allowed).toBe(false);
    if (r.allowed) return;
    expect(r.status).toMatchObject({ code: 500, message: `Internal error occurred: ${OVERFLOW}` });
  });

  it.each(['3000000000', '3.0e9'])('in an apply configuration (%s) fails the conversion with it', async (port) => {
    const ac = `Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", livenessProbe: Object.spec.containers.livenessProbe{httpGet: Object.spec.containers.livenessProbe.httpGet{port: ${port}}}}]}}`;
    const r = await evaluate(set(policy('a', [applyConfig(ac)])), request);
    expect(r.allowed).toBe(false);
    if (r.allowed) return;
    expect(r.status).toMatchObject({ code: 403, message: `policy 'a' with binding 'b-a' denied request: unable to convert unstructured object to /v1, Kind=Pod: ${OVERFLOW}` });
  });
});
