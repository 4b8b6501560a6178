/**
 * Seeded changes of a parsed YAML or JSON document for the fuzz sweeps of policies and test files, as a
 * half-written or mistyped file would have them: a member deleted, retyped (a number, text, a list, a map,
 * null, a boolean), a list item duplicated or dropped, a text cut short or given an expression's fragment.
 */
import type { Prng } from './prng.js';

export type Obj = Record<string, any>;
type Path = (string | number)[];

/** Every path in a document (members and list items), the root excluded. */
function paths(root: unknown): Path[] {
  const out: Path[] = [];
  const walk = (at: unknown, path: Path) => {
    if (at === null || typeof at !== 'object') return;
    const keys: (string | number)[] = Array.isArray(at) ? at.map((_, i) => i) : Object.keys(at);
    for (const k of keys) {
      const next = [...path, k];
      out.push(next);
      walk((at as any)[k], next);
    }
  };
  walk(root, []);
  return out;
}

const FRAGMENTS = ['', '(', ')', '{{', '}}', '/', '.', ':', '/*', '*/', '{{ request.object.metadata.name', 'object.spec.', "'", '"', '[?', '$(', '=(x)', '<(y)', '+(z)', 'X(w)', '*', '?', '\\', '\n', 'x'.repeat(300), '__proto__', 'constructor', 'toString', 'hasOwnProperty', '1constructor', 'has(', '.all(c, ', '@'];

/** One change at `path`, described. */
function mutate(rng: Prng, doc: Obj, path: Path): string {
  const parent = path.slice(0, -1).reduce((at: any, k) => at[k], doc);
  const key = path[path.length - 1];
  const old = parent[key];
  const where = path.join('.');
  switch (rng.int(8)) {
    case 0:
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      return `delete ${where}`;
    case 1: {
      const values = [0, -1, 1.5, 1e21, '', 'x', true, false, null, [], {}, [old], { value: old }];
      const value = values[rng.int(values.length)];
      parent[key] = structuredClone(value);
      return `retype ${where} to ${JSON.stringify(value)?.slice(0, 30)}`;
    }
    case 2:
      if (Array.isArray(parent)) {
        parent.splice(key as number, 0, structuredClone(old));
        return `duplicate ${where}`;
      }
      parent[`${String(key)}x`] = structuredClone(old);
      return `copy ${where} under another name`;
    case 3:
      if (typeof old === 'string' && old.length > 0) {
        parent[key] = old.slice(0, rng.int(old.length));
        return `cut ${where} short`;
      }
      parent[key] = FRAGMENTS[rng.int(FRAGMENTS.length)];
      return `replace ${where} by a fragment`;
    case 4:
      if (typeof old === 'string') {
        const fragment = FRAGMENTS[rng.int(FRAGMENTS.length)];
        const at = rng.int(old.length + 1);
        parent[key] = old.slice(0, at) + fragment + old.slice(at);
        return `insert ${JSON.stringify(fragment).slice(0, 20)} into ${where}`;
      }
      parent[key] = String(old);
      return `stringify ${where}`;
    case 5:
      if (old !== null && typeof old === 'object') {
        parent[key] = Array.isArray(old) ? Object.fromEntries(old.map((v, i) => [String(i), v])) : Object.values(old);
        return `turn ${where} into a ${Array.isArray(old) ? 'map' : 'list'}`;
      }
      parent[key] = [old];
      return `wrap ${where} in a list`;
    case 6:
      parent[key] = typeof old === 'number' ? -old : typeof old === 'boolean' ? !old : 123456789;
      return `change ${where}`;
    default:
      if (Array.isArray(old)) {
        parent[key] = [];
        return `empty ${where}`;
      }
      parent[key] = null;
      return `null ${where}`;
  }
}

/** Changes `doc` in one to three places, never its apiVersion or kind; says what was done. */
export function breakDocument(rng: Prng, doc: Obj): string[] {
  const changes: string[] = [];
  for (let n = 1 + rng.int(3); n > 0; n--) {
    const candidates = paths(doc).filter((p) => p[0] !== 'apiVersion' && p[0] !== 'kind');
    if (candidates.length === 0) break;
    changes.push(mutate(rng, doc, candidates[rng.int(candidates.length)]));
  }
  return changes;
}
