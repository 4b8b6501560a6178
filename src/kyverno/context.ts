/**
 * The JSON context variables are evaluated against (pkg/engine/context): `request`, `images`,
 * `serviceAccountName`/`serviceAccountNamespace`, `element…`, and the rule's context entries.
 * Entries are added copy-on-write, so a checkpoint is just the root object at that moment and
 * restoring it drops everything added since (rule entries after a rule, element entries after an
 * element) in O(1).
 */
import { getOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../json/index.js';

/** Evaluates a JMESPath expression against data; throws for syntax errors, unknown keys, … */
export type QueryFn = (expression: string, data: JsonValue) => JsonValue;

export type Checkpoint = { readonly root: JsonObject };

export class JsonContext {
  private root: JsonObject;

  constructor(
    private readonly search: QueryFn,
    initial: JsonObject,
  ) {
    this.root = initial;
  }

  /** The whole context document (read-only by convention). */
  get data(): JsonObject {
    return this.root;
  }

  query(expression: string): JsonValue {
    return this.search(expression, this.root);
  }

  /** JMESPath over another document (a `variable` entry's `value`, an API response). */
  queryOn(expression: string, data: JsonValue): JsonValue {
    return this.search(expression, data);
  }

  /** Sets `name` (dots make nested keys: `a.b` = `{a: {b: …}}`), replacing what was there. */
  set(name: string, value: JsonValue): void {
    this.root = setPath(this.root, name.split('.'), 0, value);
  }

  /** The value at a dotted name, or undefined. */
  get(name: string): JsonValue | undefined {
    let current: JsonValue | undefined = this.root;
    for (const key of name.split('.')) {
      if (!isJsonObject(current)) return undefined;
      current = getOwn(current, key);
    }
    return current;
  }

  checkpoint(): Checkpoint {
    return { root: this.root };
  }

  restore(checkpoint: Checkpoint): void {
    this.root = checkpoint.root;
  }
}

function setPath(target: JsonObject, path: string[], i: number, value: JsonValue): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(target)) setOwn(out, key, target[key]);
  const key = path[i];
  if (i === path.length - 1) {
    setOwn(out, key, value);
  } else {
    const child = getOwn(target, key);
    setOwn(out, key, setPath(isJsonObject(child) ? child : {}, path, i + 1, value));
  }
  return out;
}
