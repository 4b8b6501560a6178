import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { applyConfiguration, SchemaRegistry } from '../../src/schema/index.js';

/**
 * The merge-relevant MutatingAdmissionPolicy vectors, run directly against the merge: the live object and
 * the expected result come from the vector files; the apply configuration is what each vector's CEL
 * expression evaluates to (transcribed by hand below; the MAP engine runs the whole vectors with CEL).
 */
const VECTORS = join(import.meta.dirname, '..', 'vectors', 'map');

interface Vector {
  name: string;
  request: { kind: { group: string; version: string; kind: string }; object: JsonValue };
  expect: { object?: JsonValue; error?: string; defaultedFields?: string[] };
}

/** Removes fields the vector says come from in-tree re-defaulting (a webhook does not produce them). */
function withoutDefaulted(obj: JsonValue, paths: string[] = []): JsonValue {
  const copy = structuredClone(obj) as Record<string, any>;
  for (const p of paths) {
    const parts = p.split('.');
    let at: any = copy;
    for (const part of parts.slice(0, -1)) at = at?.[part];
    if (at && typeof at === 'object') delete at[parts[parts.length - 1]];
  }
  return copy;
}

function load(file: string): Map<string, Vector> {
  const docs = parseAllDocuments(readFileSync(join(VECTORS, file), 'utf8')).map((d) => d.toJS() as Vector);
  return new Map(docs.map((d) => [d.name, d]));
}

/** What the policy engine compares: null, {} and [] count as absent (vectors/map/README.md). */
function normalize(v: JsonValue): JsonValue | undefined {
  if (v === null) return undefined;
  if (Array.isArray(v)) return v.map((x) => normalize(x) ?? null);
  if (typeof v === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [k, x] of Object.entries(v)) {
      const n = normalize(x);
      if (n === undefined) continue;
      if (typeof n === 'object' && n !== null && Object.keys(n).length === 0) continue;
      out[k] = n;
    }
    return out;
  }
  return v;
}

const registry = SchemaRegistry.builtin();

function run(v: Vector, applyConfig: JsonValue) {
  const { group, version, kind } = v.request.kind;
  const type = registry.lookupGvk({ group, version, kind });
  if (!type) throw new Error(`no schema for ${group}/${version}/${kind}`);
  return applyConfiguration(type, v.request.object, applyConfig);
}

/** vector name -> the apply configuration its expression produces. */
const APPLY_CONFIGS: Record<string, Record<string, JsonValue>> = {
  'applyconfiguration.yaml': {
    'smd_test.go/TestApplyConfiguration/apply configuration update listType=map entry': {
      spec: { template: { spec: { volumes: [{ name: 'y', hostPath: { path: 'a' } }] } } },
    },
    // object.spec.replicas is 2 -> 2 % 2 == 0 -> 3
    'smd_test.go/TestApplyConfiguration/apply configuration with conditionals': { spec: { replicas: 3 } },
    // oldObject.spec.replicas is 2 -> 3
    'smd_test.go/TestApplyConfiguration/apply configuration with old object': { spec: { replicas: 3 } },
    'smd_test.go/TestApplyConfiguration/complex apply configuration initialization': {
      spec: {
        replicas: 1,
        template: {
          metadata: { labels: { app: 'nginx' } },
          spec: {
            containers: [{ name: 'nginx', image: 'nginx:1.14.2', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '128M' } } }],
          },
        },
      },
    },
    'smd_test.go/TestApplyConfiguration/apply configuration with change to atomic': { spec: { selector: { matchLabels: { l: 'v' } } } },
    'smd_test.go/TestApplyConfiguration/apply configuration with invalid field name': { spec: { replicasx: 1 } },
    'smd_test.go/TestApplyConfiguration/apply configuration add to listType=map': {
      spec: { template: { spec: { volumes: [{ name: 'y' }] } } },
    },
    // The live object's duplicate env entries are not touched by a patch that does not reach them.
    'smd_test.go/TestApplyConfiguration/apply configuration with duplicate env vars in original object': { spec: { replicas: 3 } },
    // typeconverter_test.go: the typed round trip of the live object alone (an empty apply configuration).
    'typeconverter_test.go/TestTypeConverter/simple round trip': {},
    'smd_test.go/TestApplyConfiguration/apply configuration modify existing env variable': {
      spec: { template: { spec: { containers: [{ name: 'nginx', env: [{ name: 'test', value: 'c' }] }] } } },
    },
  },
  'plugin.yaml': {
    'plugin_test.go/TestSSAPatch': { metadata: { annotations: { foo: 'bar' } }, data: { myfield: 'myvalue' } },
    'plugin_test.go/TestSSAMapList': {
      metadata: { annotations: { foo: 'bar' } },
      spec: { initContainers: [{ name: 'injected-init-container', image: 'injected-image' }] },
    },
  },
  'dispatcher.yaml': {
    // object.spec.replicas + 100 with replicas 1
    'dispatcher_test.go/TestDispatcher/simple patch': { spec: { replicas: 101 } },
  },
};

/** Vectors of these files that fail before the merge (CEL type checks), so there is nothing to transcribe. */
const NOT_MERGE = new Set([
  'smd_test.go/TestApplyConfiguration/apply configuration with invalid type name',
  'smd_test.go/TestApplyConfiguration/apply configuration with invalid return type',
  'smd_test.go/TestApplyConfiguration/apply configuration with invalid initializer return type',
]);

describe('ApplyConfiguration merge against the MAP vectors', () => {
  for (const [file, cases] of Object.entries(APPLY_CONFIGS)) {
    const vectors = load(`mutation/${file}`);
    for (const [name, applyConfig] of Object.entries(cases)) {
      it(`${file}: ${name}`, () => {
        const v = vectors.get(name);
        expect(v, `vector ${name} is in ${file}`).toBeDefined();
        const result = run(v!, applyConfig);
        if (v!.expect.error !== undefined) {
          expect(result.ok).toBe(false);
          if (!result.ok) expect(`error applying patch: ${result.error.message}`).toBe(v!.expect.error);
        } else {
          if (!result.ok) throw result.error;
          expect(normalize(result.object)).toEqual(normalize(withoutDefaulted(v!.expect.object!, v!.expect.defaultedFields)));
        }
      });
    }
  }

  it('covers every ApplyConfiguration vector of applyconfiguration.yaml', () => {
    const names = [...load('mutation/applyconfiguration.yaml').keys()];
    const covered = new Set([...Object.keys(APPLY_CONFIGS['applyconfiguration.yaml']), ...NOT_MERGE]);
    expect(names.filter((n) => !covered.has(n))).toEqual([]);
  });
});
