/**
 * Where the `{{ }}` variables of a policy's own document are, found once per document: the compiled
 * policies' documents are frozen and substituted again with every review, and walking all of such a
 * document to find the few strings that hold a variable cost more than substituting them. A plan lists
 * those strings (with their paths, in the order a walk of the document meets them) and the containers
 * on the way to them; substituting then visits nothing else and copies only those containers, as the
 * general walk does (./walk.ts rewriteStrings).
 *
 * Only plain cases get a plan: a document holding a `$(…)` reference (which reads the document itself)
 * or a variable in a map key takes the general walk.
 */
import { ownMember, setOwn, shallowCopyObject, sliceArray, type JsonObject, type JsonValue } from '../../json/index.js';

/** A container on the way to variables: the members to substitute, in document order. */
export interface PlanNode {
  readonly steps: readonly PlanStep[];
}

/** One member: a string holding a variable (`text`, at `path`), or a container holding some (`node`). */
type PlanStep =
  | { readonly key: string | number; readonly text: string; readonly path: readonly string[]; readonly node?: undefined }
  | { readonly key: string | number; readonly node: PlanNode; readonly text?: undefined };

/** The document has no variable at all: substituting it gives it back. */
export const NOTHING = 'nothing';
/** The document needs the general walk. */
export const GENERAL = 'general';

export type SubstitutionPlan = PlanNode | typeof NOTHING | typeof GENERAL;

const plans = new WeakMap<object, SubstitutionPlan>();

/** The plan of a frozen document (computed on first use, then remembered); GENERAL for anything else. */
export function planOf(document: object): SubstitutionPlan {
  let plan = plans.get(document);
  if (plan !== undefined) return plan;
  if (!Object.isFrozen(document)) return GENERAL;
  const node = build(document, []);
  plan = node === null ? GENERAL : (node ?? NOTHING);
  plans.set(document, plan);
  return plan;
}

/** The plan of one container; undefined when nothing in it holds a variable, null when it needs the general walk. */
function build(value: object, path: string[]): PlanNode | undefined | null {
  const steps: PlanStep[] = [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!member(value[i] as JsonValue, i, String(i), path, steps)) return null;
  } else {
    for (const key of Object.keys(value)) {
      if (key.includes('{{') || key.includes('$(')) return null;
      if (!member((value as JsonObject)[key], key, key, path, steps)) return null;
    }
  }
  return steps.length > 0 ? { steps } : undefined;
}

/** Adds the step of one member, if it has variables; false when the document needs the general walk. */
function member(value: JsonValue, key: string | number, segment: string, path: string[], steps: PlanStep[]): boolean {
  if (typeof value === 'string') {
    if (value.includes('$(')) return false;
    if (value.includes('{{')) steps.push({ key, text: value, path: Object.freeze([...path, segment]) });
    return true;
  }
  if (typeof value !== 'object' || value === null) return true;
  path.push(segment);
  const node = build(value, path);
  path.pop();
  if (node === null) return false;
  if (node !== undefined) steps.push({ key, node });
  return true;
}

/**
 * The document with each planned string replaced by `substitute(text, path)`, called in document order;
 * containers are copied only where a value changed (so an unchanged document comes back as itself).
 */
export function applyPlan(value: JsonValue, node: PlanNode, substitute: (text: string, path: readonly string[]) => JsonValue): JsonValue {
  if (Array.isArray(value)) {
    let out: JsonValue[] | undefined;
    for (const step of node.steps) {
      const i = step.key as number;
      const child = value[i];
      const next = step.node ? applyPlan(child, step.node, substitute) : substitute(step.text, step.path);
      if (next !== child) (out ??= sliceArray(value))[i] = next;
    }
    return out ?? value;
  }
  const object = value as JsonObject;
  let out: JsonObject | undefined;
  for (const step of node.steps) {
    const key = step.key as string;
    const child = object[key];
    const next = step.node ? applyPlan(child, step.node, substitute) : substitute(step.text, step.path);
    if (next !== child) setOwn((out ??= shallowCopyObject(object)), key, next);
  }
  return out ?? object;
}

/**
 * applyPlan of an object document of which only the member `key` is read afterwards (undefined: none, the
 * document is substituted for its errors alone): every planned string is substituted as applyPlan does, in
 * document order, but containers are copied only within that member, which is given back (the document's
 * own when nothing in it changed). The copies of the document and of its other members would be dropped unread.
 */
export function applyPlanMember(object: JsonObject, node: PlanNode, key: string | undefined, substitute: (text: string, path: readonly string[]) => JsonValue): JsonValue | undefined {
  let out = key !== undefined ? ownMember(object, key) : undefined;
  for (const step of node.steps) {
    const child = object[step.key as string];
    if (step.key === key) out = step.node ? applyPlan(child, step.node, substitute) : substitute(step.text, step.path);
    else if (step.node) visitPlan(child, step.node, substitute);
    else substitute(step.text, step.path);
  }
  return out;
}

/** The substitutions applyPlan would make, in its order, without building anything. */
function visitPlan(value: JsonValue, node: PlanNode, substitute: (text: string, path: readonly string[]) => JsonValue): void {
  for (const step of node.steps) {
    if (step.node) visitPlan((value as JsonObject)[step.key as string], step.node, substitute);
    else substitute(step.text, step.path);
  }
}
