/**
 * How deeply a policy document may nest. Every walker of the policy compilers and engines recurses per
 * level (anchor and variable scans, the overlay's pre-processing, autogen, freezing, the merge), so a
 * document deeper than the stack holds failed with whatever error the overflow surfaced as, at a depth
 * that varied with the stack. The bound is checked first, explicitly, before any of them runs: it is the
 * one Amender's readers already hold (`DEFAULT_MAX_DEPTH`, JSON; YAML stops at 500), so it refuses only a
 * document built some other way (a library caller's object), and names where it is too deep. The Kyverno
 * ClusterPolicy compiler (src/kyverno) and the MutatingAdmissionPolicy and MutatingPolicy loaders (src/map,
 * src/mpol) check their documents with it, each following its own structure.
 */
import { DEFAULT_MAX_DEPTH } from './parse.js';
import { getOwn, hasOwn } from './own.js';
import { heightUpTo } from './height.js';
import { isJsonObject, type JsonValue } from './types.js';

/** Where a document nests too deeply: a field path (`spec.rules[0].mutate.patchStrategicMerge`) and why. */
export interface DepthProblem {
  readonly path: string;
  readonly message: string;
}

/** The most levels a policy document may nest (`{}` is one level). */
export const MAX_POLICY_DEPTH = DEFAULT_MAX_DEPTH;

/**
 * undefined when `document` nests at most MAX_POLICY_DEPTH levels; otherwise the problem, at the field
 * where it is too deep (`spec.rules[0].mutate.patchStrategicMerge`, naming the rule of a `spec.rules`
 * list). `structure`: the keys whose value is looked into for a more precise path (the path stops at the
 * first other key), each policy kind its own. Walks no deeper than the bound plus one, so it never
 * overflows the stack itself.
 */
export function documentDepthProblem(document: JsonValue, structure: ReadonlySet<string>): DepthProblem | undefined {
  if (heightUpTo(document, MAX_POLICY_DEPTH) <= MAX_POLICY_DEPTH) return undefined;
  // Follow the too-deep member down the policy's structure (spec → rules → [i] → mutate → foreach…).
  let node: JsonValue = document;
  let path = '';
  let room = MAX_POLICY_DEPTH - 1; // levels the members of `node` may still have
  let ruleName: string | undefined;
  let inRules = false;
  for (;;) {
    const step = tooDeepMember(node, room);
    if (step === undefined) break;
    path = typeof step.key === 'number' ? `${path}[${step.key}]` : path === '' ? step.key : `${path}.${step.key}`;
    if (inRules && typeof step.key === 'number' && ruleName === undefined && isJsonObject(step.value)) {
      const name = getOwn(step.value, 'name');
      ruleName = typeof name === 'string' ? name : '';
    }
    inRules = path === 'spec.rules';
    node = step.value;
    room--;
    if (typeof step.key === 'string' && !structure.has(step.key)) break;
  }
  const rule = ruleName === undefined ? '' : `rule ${JSON.stringify(ruleName)}: `;
  return {
    path,
    message: `${rule}nests deeper than ${MAX_POLICY_DEPTH} levels, the most a policy document may (counted from the document's top)`,
  };
}

interface Member {
  readonly key: string | number;
  readonly value: JsonValue;
}

/** The first member of `node` nesting more than `room` levels. */
function tooDeepMember(node: JsonValue, room: number): Member | undefined {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) if (heightUpTo(node[i], room) > room) return { key: i, value: node[i] };
    return undefined;
  }
  if (!isJsonObject(node)) return undefined;
  for (const key in node) {
    if (!hasOwn(node, key)) continue;
    const value = node[key] as JsonValue;
    if (heightUpTo(value, room) > room) return { key, value };
  }
  return undefined;
}
