/**
 * structured-merge-diff's merge tests (test/schema/smd/merge-sequences.yaml: merge/*_test.go of
 * kubernetes-sigs/structured-merge-diff v6.4.2, the cases whose appliers never re-apply with fewer fields):
 * each case's operations in turn, as a MutatingAdmissionPolicy's ApplyConfiguration meets them. An
 * update replaces the live object (duplicates allowed, as a stored object may hold them); an apply
 * converts its configuration (no duplicates) and merges it into the live object (`live.Merge(config)`); an
 * apply that conflicts is refused upstream and leaves the live object as it was. The result must equal
 * upstream's object (lists in order), or some operation must be refused where upstream expects an error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../src/json/index.js';
import { SchemaRegistry, type TypeRef } from '../../src/schema/index.js';
import { smdMerge } from '../../src/schema/ssa/merge.js';
import { validateTyped } from '../../src/schema/ssa/validate.js';
import { smdKind, smdSchema } from './smd-schema.js';

interface Op {
  apply?: string;
  forceApply?: string;
  update?: string;
  manager: string;
  /** Upstream refuses this apply with conflicts: the live object stays. */
  conflicts?: boolean;
}
interface Case {
  name: string;
  ops: Op[];
  /** The live object after the operations (JSON text). */
  out?: string;
  /** `error`: some operation is refused; `accepted`: none is (upstream asserts no object). */
  expect?: 'error' | 'accepted';
}
interface Group {
  file: string;
  test: string;
  parser: string;
  /** SMD schema YAML whose first type is the object's; empty for the deduced parser. */
  schema: string;
  cases: Case[];
}

const data = parse(readFileSync(join(import.meta.dirname, 'smd', 'merge-sequences.yaml'), 'utf8')) as { groups: Group[] };
const GVK = { group: 'smd.example', version: 'v1', kind: 'Thing' };

function rootOf(group: Group): TypeRef {
  if (group.parser === 'DeducedParser') return SchemaRegistry.builtin().deduced(GVK).root;
  const first = (parse(group.schema) as { types: { name: string }[] }).types[0].name;
  return smdKind(smdSchema(group.schema)(first), GVK).root;
}

/** The live object after the operations, or the first refusal. */
function run(ops: readonly Op[], root: TypeRef): { live: JsonValue | null } | { refused: string } {
  let live: JsonValue | null = null;
  for (const op of ops) {
    if (op.update !== undefined) {
      const value = JSON.parse(op.update) as JsonValue;
      const errors = validateTyped(value, root, true);
      if (errors.length > 0) return { refused: JSON.stringify(errors) };
      live = value;
      continue;
    }
    if (op.conflicts) continue;
    const config = JSON.parse((op.apply ?? op.forceApply)!) as JsonValue;
    const errors = validateTyped(config, root, false);
    if (errors.length > 0) return { refused: JSON.stringify(errors) };
    const merged = smdMerge(live, config, root);
    if (merged.errors.length > 0) return { refused: JSON.stringify(merged.errors) };
    live = merged.value ?? null;
  }
  return { live };
}

describe('structured-merge-diff merge/*_test.go sequences', () => {
  it('carries them all', () => expect(data.groups.flatMap((g) => g.cases)).toHaveLength(49));

  for (const group of data.groups) {
    describe(`${group.file} ${group.test}`, () => {
      const root = rootOf(group);
      for (const c of group.cases) {
        it(c.name, () => {
          const result = run(c.ops, root);
          if (c.expect === 'error') {
            expect('refused' in result, 'an operation is refused').toBe(true);
            return;
          }
          expect(result, 'refused' in result ? result.refused : '').toHaveProperty('live');
          if (c.out !== undefined && 'live' in result) expect(result.live).toEqual(JSON.parse(c.out));
        });
      }
    });
  }
});
