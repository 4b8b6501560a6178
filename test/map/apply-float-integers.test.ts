/**
 * An ApplyConfiguration's CEL double in a Go integer field (`priority: 30.0`): server-side apply keeps the
 * float64, then the dispatcher converts the result into the Go type (mutating/dispatcher.go dispatchOne,
 * ConvertToVersion → runtime/converter.go fromUnstructured: an integral float64 is reflect-Convert-ed,
 * `int64(f)` then the field's size). The next mutation reads that typed object encoded again: an int, no
 * fraction; and an int32 keeps the low 32 bits of a double past its range, as it does for an int.
 */
import { describe, expect, it } from 'vitest';
import { patchText } from '../../src/admission/patch-text.js';
import { evaluate } from '../../src/engine/index.js';
import { podRequest } from '../kyverno/helpers/requests.js';
import { applyConfig, jsonPatch, policy, set } from './helpers.js';

const request = podRequest(
  { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'app', image: 'app:1' }] } },
  { uid: 'u-1', userInfo: {} },
);

const READ_PRIORITY = jsonPatch(
  '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"type": type(object.spec.priority) == int ? "int" : "double", "value": string(object.spec.priority)}}]',
);

async function run(...mutations: Record<string, unknown>[]) {
  const r = await evaluate(set(policy('a', mutations)), request);
  expect(r.allowed, JSON.stringify(r)).toBe(true);
  if (!r.allowed) throw new Error('denied');
  return { object: r.object as any, patch: JSON.parse(patchText(r.patch)) };
}

describe('an integral double in an integer field of an apply configuration', () => {
  it('is an int for the next mutation, whose JSON patch decodes', async () => {
    const { object } = await run(applyConfig('Object{spec: Object.spec{priority: 30.0}}'), READ_PRIORITY);
    expect(object.spec.priority).toBe(30);
    expect(object.metadata.annotations).toEqual({ type: 'int', value: '30' });
  });

  it('an int64 field too', async () => {
    const { object } = await run(
      applyConfig('Object{spec: Object.spec{activeDeadlineSeconds: 1.0e3}}'),
      jsonPatch('[JSONPatch{op: "add", path: "/metadata/annotations", value: {"type": type(object.spec.activeDeadlineSeconds) == int ? "int" : "double"}}]'),
    );
    expect(object.metadata.annotations).toEqual({ type: 'int' });
  });

  it('an IntOrString too (converted through its JSON: its int)', async () => {
    const { object } = await run(
      applyConfig('Object{spec: Object.spec{containers: [Object.spec.containers{name: "app", livenessProbe: Object.spec.containers.livenessProbe{httpGet: Object.spec.containers.livenessProbe.httpGet{port: 80.0}}}]}}'),
      jsonPatch('[JSONPatch{op: "add", path: "/metadata/annotations", value: {"type": type(object.spec.containers[0].livenessProbe.httpGet.port) == int ? "int" : "other"}}]'),
    );
    expect(object.spec.containers[0].livenessProbe.httpGet.port).toBe(80);
    expect(object.metadata.annotations).toEqual({ type: 'int' });
  });

  it.each([
    ['3.0e9', -1294967296],
    ['-3.0e9', 1294967296],
    ['4294967297.0', 1],
  ])('past int32, %s keeps the low 32 bits as an int does', async (literal, expected) => {
    const { object, patch } = await run(applyConfig(`Object{spec: Object.spec{priority: ${literal}}}`), READ_PRIORITY);
    expect(object.spec.priority).toBe(expected);
    expect(object.metadata.annotations).toEqual({ type: 'int', value: String(expected) });
    expect(patch).toContainEqual({ op: 'add', path: '/spec/priority', value: expected });
  });
});
