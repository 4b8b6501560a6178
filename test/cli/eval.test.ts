/** `amender eval`, run in-process through its CliCommand. */
import { describe, expect, it } from 'vitest';
import { evalCommand } from '../../src/cli/commands/eval.js';
import type { CliIO } from '../../src/cli/io.js';

function io(files: Record<string, string> = {}, stdin = '') {
  let out = '';
  let err = '';
  const cli: CliIO = {
    readStdin: async () => stdin,
    readFile: async (p) => {
      if (!(p in files)) throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
      return files[p];
    },
    out: (t) => void (out += t),
    err: (t) => void (err += t),
  };
  return { cli, out: () => out, err: () => err };
}

async function run(argv: string[], files?: Record<string, string>, stdin?: string) {
  const t = io(files, stdin);
  const code = await evalCommand(argv, t.cli);
  return { code, out: t.out(), err: t.err() };
}

describe('amender eval --expression', () => {
  it('prints the value and its CEL type', async () => {
    expect(await run(['--expression', '[1, 2].map(x, x * 2)'])).toEqual({ code: 0, out: '{"value":[2,4],"type":"list(int)"}\n', err: '' });
    expect((await run(['--expression', '1.0 + 2.0'])).out).toBe('{"value":3.0,"type":"double"}\n');
  });

  it('tags values JSON cannot hold', async () => {
    const cases: [string, string][] = [
      ['9223372036854775807', '{"$int":"9223372036854775807"}'],
      ['18446744073709551615u', '{"$uint":"18446744073709551615"}'],
      ["b'\\x00\\xff'", '{"$bytes":"AP8="}'],
      ["timestamp('2024-01-01T00:00:00.000000001Z')", '{"$timestamp":"2024-01-01T00:00:00.000000001Z"}'],
      ["duration('1h30m')", '{"$duration":"5400s"}'],
      ['int', '{"$type":"int"}'],
      ['optional.of(1)', '{"$optional":1}'],
      ['optional.none()', '{"$optional":null,"none":true}'],
      ['{1: "a"}', '{"$map":[[1,"a"]]}'],
      ['0.0 / 0.0', '{"$double":"NaN"}'],
      ["ip('10.0.0.1')", '{"$net.IP":"10.0.0.1"}'],
      ["quantity('1.5Gi')", '{"$kubernetes.Quantity":"1536Mi"}'],
      ['Object{spec: Object.spec{replicas: 1}}', '{"$object":"Object","fields":{"spec":{"$object":"Object.spec","fields":{"replicas":1}}}}'],
    ];
    for (const [expr, want] of cases) {
      const r = await run(['--expression', expr]);
      expect(r.out, `${expr}: ${r.err}`).toBe(`{"value":${want},`.concat(r.out.slice(r.out.indexOf(',"type"') + 1)));
      expect(r.code).toBe(0);
    }
  });

  it('reads bindings from a YAML or JSON file, with params and variables', async () => {
    const yaml = `object:
  metadata:
    name: web
    labels: {app: shop}
  spec:
    replicas: 3
request:
  operation: CREATE
params:
  data: {suffix: "-x"}
variables:
  - name: name
    expression: object.metadata.name + params.data.suffix
`;
    const r = await run(['--expression', "variables.name + ':' + string(object.spec.replicas) + ':' + request.operation", '--bindings', 'b.yaml'], {
      'b.yaml': yaml,
    });
    expect(r).toEqual({ code: 0, out: '{"value":"web-x:3:CREATE","type":"string"}\n', err: '' });
    const json = await run(['--expression', 'type(object.a) == double && type(object.b) == int', '--bindings', 'b.json'], {
      'b.json': '{"object": {"a": 1.0, "b": 1}}',
    });
    expect(json.out).toBe('{"value":true,"type":"bool"}\n');
  });

  it('reports compile and runtime errors on stderr with exit 1', async () => {
    const c = await run(['--expression', '1 +']);
    expect(c.code).toBe(1);
    expect(JSON.parse(c.err).error).toMatch(/^compilation failed: ERROR: <input>:1:4: Syntax error/);
    const e = await run(['--expression', 'object.spec.replicas']);
    expect(c.out + e.out).toBe('');
    expect(JSON.parse(e.err)).toEqual({ error: "expression 'object.spec.replicas' resulted in error: no such key: spec" }); // cel-go qualifies null like any value without fields
    const role = await run(['--expression', '1', '--role', 'matchCondition']);
    expect(JSON.parse(role.err)).toEqual({ error: 'must evaluate to bool but got int' });
  });

  it('rejects a wrong command line', async () => {
    await expect(run([])).rejects.toThrow('give --expression CEL, or --batch');
    await expect(run(['--expression', '1', '--role', 'nope'])).rejects.toThrow('--role must be one of');
    await expect(run(['--batch', '--expression', '1'])).rejects.toThrow('--batch reads expressions');
  });
});

describe('amender eval --batch', () => {
  it('answers each JSON line with a value or an error', async () => {
    const lines = [
      { expression: 'object.x + 1', bindings: { object: { x: 41 } } },
      { expression: 'params.n * 2', params: { n: 21 } },
      { expression: 'variables.v.size()', variables: [{ name: 'v', expression: "'abc'" }] },
      { expression: 'nope' },
      { expression: '1 / 0' },
      { expression: "[1,2,3].all(x, x > 0)", bindings: {} },
    ];
    const stdin = `${lines.map((l) => JSON.stringify(l)).join('\n')}\n\nnot json\n{"bindings": {}}\n`;
    const r = await run(['--batch', '--cost'], {}, stdin);
    expect(r.code).toBe(0);
    const out = r.out.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(out).toEqual([
      { value: 42, type: 'int', cost: 3 },
      { value: 42, type: 'int', cost: 3 },
      { value: 3, type: 'int', cost: 3 },
      { error: expect.stringContaining("undeclared reference to 'nope'") },
      { error: "expression '1 / 0' resulted in error: division by zero", cost: 1 },
      { value: true, type: 'bool', cost: 16 },
      { error: expect.stringContaining('line 8: malformed JSON') },
      { error: 'line 9: "expression" must be a string' },
    ]);
  });
});

// A misspelt binding (`objekt`) would otherwise leave `object` null and print a value computed from nothing.
describe('amender eval: keys it does not know', () => {
  it('refuses an unknown key of a bindings file, naming it', async () => {
    const r = await run(['--expression', 'object == null', '--bindings', 'b.json'], { 'b.json': '{"objekt": {"a": 1}}' });
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe('amender eval: bindings: unknown key "objekt" (expected object, oldObject, request, namespaceObject, params, variables)\n');
  });

  it('answers a batch line with an unknown key, or an unknown key of its bindings, with an error line', async () => {
    const stdin = `${JSON.stringify({ expression: '1', bogus: 1 })}\n${JSON.stringify({ expression: 'object == null', bindings: { objekt: {} } })}\n${JSON.stringify({ expression: '2' })}\n`;
    const r = await run(['--batch'], {}, stdin);
    expect(r.code).toBe(0);
    expect(r.out.trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual([
      { error: 'line 1: unknown key "bogus" (expected expression, bindings, variables, params)' },
      { error: 'line 2: bindings: unknown key "objekt" (expected object, oldObject, request, namespaceObject, params, variables)' },
      { value: 2, type: 'int' },
    ]);
  });
});
