/**
 * Seeded mutations of real AdmissionReviews for the fuzz sweep (fuzz-reviews.test.ts): structural ones on
 * the parsed review (delete, duplicate, retype, rename a member, anywhere from the envelope down into the
 * object), values only raw JSON text can carry (1e400, -0, 2^53+1, lone surrogates, duplicate keys,
 * nesting at the depth limit), and byte-level ones on the encoded body (truncation, trailing garbage, BOM,
 * NUL and non-UTF-8 bytes). Every case is bytes, as the API server would send them.
 */
import type { Prng } from './prng.js';

export type Obj = Record<string, any>;

export interface FuzzCase {
  /** What was done, for the failure message (with the seed and the case number). */
  name: string;
  body: Uint8Array;
}

export interface MutationLimits {
  maxJsonDepth: number;
  maxBodyBytes: number;
}

/**
 * Raw JSON text put into the serialized review where a marker string stands: what JSON.stringify cannot
 * write (numbers beyond a double, -0, lone surrogates as escapes, integral float literals, duplicate keys).
 */
class RawText {
  private readonly raws: string[] = [];
  private readonly labels: string[] = [];

  /** A marker for `raw`; `label` names it in a case's name (default: its start). */
  value(raw: string, label = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw): string {
    this.raws.push(raw);
    this.labels.push(label);
    return `\u0001R${this.raws.length - 1}\u0001`;
  }

  /** How a case's name shows `value`: a raw text by its label. */
  shown(value: unknown): string {
    if (typeof value === 'string') {
      const m = /^\u0001R(\d+)\u0001$/.exec(value);
      if (m) return this.labels[Number(m[1])];
      return value.length > 30 ? `a string of ${value.length} characters` : JSON.stringify(value);
    }
    return Array.isArray(value) ? `array[${value.length}]` : value === null ? 'null' : typeof value;
  }

  /** A member key standing for raw `"key":value` text (its own value in the tree is ignored). */
  member(raw: string): string {
    this.raws.push(raw);
    this.labels.push('a member');
    return `\u0001M${this.raws.length - 1}\u0001`;
  }

  render(tree: unknown): string {
    let text = JSON.stringify(tree);
    text = text.replace(/"\\u0001M(\d+)\\u0001":(?:null|true|false|-?\d+)/g, (_, i: string) => this.raws[Number(i)]);
    return text.replace(/"\\u0001R(\d+)\\u0001"/g, (_, i: string) => this.raws[Number(i)]);
  }
}

const RAW_NUMBERS = ['1e400', '-1e400', '-0', '-0.0', '9007199254740993', '1.0', '1e3', '2.50', '0.1', '-9223372036854775809', '18446744073709551616', '1E-400', '5e-324', '1e-7', '123456789012345678901234567890'];
const RAW_STRINGS = ['"\\ud800"', '"\\udfff\\ud800x"', '"a\\u0000b"', '"\\u2028\\u2029"', '"\\ufeff"', '"\\ud83d\\ude00"', '"\\/\\b\\f\\n\\r\\t"', '"\\u0000"', '"{{ request.object }}"', '"$(x)"', '"=(a)"'];
const KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '', '\ud800', 'a\u0000b', '~1/', '$ref', 'length', '0', '-1', 'metadata', 'name', 'labels', 'spec', 'containers', 'k'.repeat(5000)];
/** Pollution attempts: if any of these reached a prototype, `({}).polluted` would be defined. */
const PROTO_BOMB = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"}}';

/** `[[…]]` or `{"a":{"a":…}}` adding `levels` levels of nesting. */
function nested(levels: number, object: boolean): string {
  return object ? '{"a":'.repeat(levels) + '0' + '}'.repeat(levels) : '['.repeat(levels) + ']'.repeat(levels);
}

type Path = (string | number)[];

/** A random node's path: a walk from the root that stops at each level with some chance. */
function randomPath(rng: Prng, root: unknown, stop: number): Path {
  const path: Path = [];
  let at: any = root;
  while (at !== null && typeof at === 'object' && !rng.chance(stop)) {
    const keys: (string | number)[] = Array.isArray(at) ? at.map((_, i) => i) : Object.keys(at);
    if (keys.length === 0) break;
    const key = rng.pick(keys);
    path.push(key);
    at = at[key];
  }
  return path;
}

function parentOf(root: unknown, path: Path): any {
  let at: any = root;
  for (const key of path.slice(0, -1)) at = at[key];
  return at;
}

/** Sets `obj[key]` as own data, even for `__proto__`. */
function put(obj: any, key: string | number, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `obj` with `key: value` added at the start or the end of its members. */
function withMember(obj: Obj, key: string, value: unknown, first: boolean): Obj {
  const out: Obj = {};
  if (first) put(out, key, value);
  for (const k of Object.keys(obj)) if (!(first && k === key)) put(out, k, obj[k]);
  if (!first) put(out, key, value);
  return out;
}

/** Replaces the node at `path` (the root when empty), returning the new root. */
function replaceAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value;
  put(parentOf(root, path), path[path.length - 1], value);
  return root;
}

/** A value of any type, sometimes one only raw text can carry; `depth` is the nesting where it lands. */
function randomValue(rng: Prng, raw: RawText, original: unknown, depth: number, limits: MutationLimits): unknown {
  switch (rng.int(18)) {
    case 0: return null;
    case 1: return rng.chance(0.5);
    case 2: return rng.pick([0, -1, 1, 42, 2 ** 31, -(2 ** 53), 1.5, Number.MAX_VALUE, Number.MIN_VALUE]);
    case 3: return rng.pick(['', 'x', 'CREATE', 'Pod', 'v1', 'true', '0', ' ', 'admission.k8s.io/v1', 'nginx:latest']);
    case 4: return [];
    case 5: return {};
    case 6: return [original];
    case 7: return { x: original };
    case 8: return JSON.stringify(original ?? null)?.slice(0, 200);
    case 9: return raw.value(rng.pick(RAW_NUMBERS));
    case 10: return raw.value(rng.pick(RAW_STRINGS));
    case 11: return raw.value(PROTO_BOMB);
    // Just inside or just past the depth limit, counting the levels above the landing place.
    case 12: {
      const levels = Math.max(1, limits.maxJsonDepth - depth + rng.pick([-1, 0, 1]));
      return raw.value(nested(levels, rng.chance(0.5)), `${levels} levels of nesting at depth ${depth}`);
    }
    case 13: return rng.chance(0.1) ? 'x'.repeat(rng.pick([100_000, limits.maxBodyBytes + 10])) : 'y'.repeat(rng.int(5000));
    case 14: {
      if (!rng.chance(0.1)) return Array(rng.int(50)).fill(original ?? 1);
      const item = rng.pick(['0', '""', '{}', 'null', '"a"']);
      return raw.value(`[${Array(100_000).fill(item).join(',')}]`, `100000 items ${item}`);
    }
    case 15: return Array.isArray(original) ? [...original, ...original] : original;
    case 16: return typeof original === 'string' ? original + rng.pick(['\u0000', '\ud800', '\uffff', '/', '~', '{{', '*', '\n']) : -0;
    default: return raw.value(`{${rng.pick(KEYS.map((k) => JSON.stringify(k)))}:${rng.pick(['1', '"v"', 'null', '{}', '[]'])}}`);
  }
}

/** Top-level review fields and request fields a mutation may aim at, so the envelope is hit often. */
const REQUEST_FIELDS = ['uid', 'kind', 'resource', 'subResource', 'requestKind', 'requestResource', 'requestSubResource', 'name', 'namespace', 'operation', 'userInfo', 'object', 'oldObject', 'dryRun', 'options'];
const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', 'create', 'PATCH', '', 'CREATE ', null, 7];

/** One structural mutation of `root`; returns the new root and what was done. */
function mutateTree(rng: Prng, raw: RawText, root: unknown, limits: MutationLimits): [unknown, string] {
  // Most mutations land inside the documents a policy reads, a quarter on the request's own fields (so the
  // envelope's checks are hit often), the rest anywhere.
  const request = root && typeof root === 'object' ? (root as Obj).request : undefined;
  const hasRequest = request !== null && typeof request === 'object' && !Array.isArray(request);
  let path: Path;
  const aim = rng.next();
  if (hasRequest && aim < 0.55) {
    const field = rng.pick(['object', 'object', 'object', 'oldObject', 'userInfo', 'options']);
    path = ['request', field, ...randomPath(rng, request[field], 0.1)];
  } else if (hasRequest && aim < 0.8) {
    path = ['request', rng.pick(REQUEST_FIELDS)];
    if (rng.chance(0.4)) {
      const node = request[path[1]];
      if (node && typeof node === 'object') {
        const keys: (string | number)[] = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
        if (keys.length > 0) path.push(rng.pick(keys));
      }
    }
  } else {
    path = randomPath(rng, root, 0.15);
  }
  const where = path.length === 0 ? '(root)' : path.map(String).join('.').slice(0, 80);
  const node = path.reduce<any>((at, key) => (at && typeof at === 'object' ? at[key] : undefined), root);
  const parent = path.length > 0 ? parentOf(root, path) : undefined;
  const key = path[path.length - 1];
  const exists = parent !== undefined && parent !== null && typeof parent === 'object' && Object.hasOwn(parent, key);
  switch (rng.int(8)) {
    case 0: {
      if (!exists) break;
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      return [root, `delete ${where}`];
    }
    case 1: {
      // A duplicate key, before or after the member it repeats (JSON.parse keeps the last).
      if (!exists || Array.isArray(parent)) break;
      const other = rng.chance(0.5) ? undefined : randomValue(rng, raw, node, path.length, limits);
      const value = other === undefined ? JSON.stringify(node) : raw.render(other);
      const first = rng.chance(0.5);
      const member = raw.member(`${JSON.stringify(key)}:${value ?? 'null'}`);
      const what = other === undefined ? 'the same value' : raw.shown(other);
      return [replaceAt(root, path.slice(0, -1), withMember(parent, member, null, first)), `duplicate key ${where} with ${what} (${first ? 'first' : 'last'})`];
    }
    case 2: {
      if (!exists || !Array.isArray(parent)) break;
      parent.splice(key as number, 0, node);
      return [root, `duplicate item ${where}`];
    }
    case 3: {
      // A member with an odd key (a prototype's name, a lone surrogate) in an object on the path.
      const target = node && typeof node === 'object' && !Array.isArray(node) ? node : parent;
      if (!target || typeof target !== 'object' || Array.isArray(target)) break;
      const name = rng.pick(KEYS);
      const value = randomValue(rng, raw, undefined, path.length + 1, limits);
      put(target, name, value);
      return [root, `add ${JSON.stringify(name.slice(0, 30))} = ${raw.shown(value)} under ${where}`];
    }
    case 4: {
      if (!exists || Array.isArray(parent)) break;
      const name = rng.pick(KEYS);
      const renamed: Obj = {};
      for (const k of Object.keys(parent)) put(renamed, k === key ? name : k, parent[k]);
      return [replaceAt(root, path.slice(0, -1), renamed), `rename ${where} to ${JSON.stringify(name.slice(0, 30))}`];
    }
    case 5: {
      if (key === 'operation' && path.length === 2) return [replaceAt(root, path, rng.pick(OPERATIONS)), `operation ${where}`];
      // The other document of the request in the place of this one: an oldObject on CREATE, an UPDATE whose
      // oldObject is its object, a DELETE that still carries its object.
      if ((key === 'oldObject' || key === 'object') && path.length === 2) {
        const other = parent[key === 'object' ? 'oldObject' : 'object'];
        return [replaceAt(root, path, structuredClone(other ?? null)), `${where} copied from its sibling`];
      }
      break;
    }
    default:
      break;
  }
  const value = randomValue(rng, raw, node, path.length, limits);
  return [replaceAt(root, path, value), `retype ${where} to ${raw.shown(value)}`];
}

const UTF8 = new TextEncoder();
const BOM = [0xef, 0xbb, 0xbf];
const BAD_UTF8: number[][] = [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80]];
const GARBAGE = ['x', '}', ']', ',', '{}', 'null', '\u0000', ' //', '\ufeff', ' \n\t'];

function concat(...parts: (Uint8Array | number[])[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** One byte-level mutation of an encoded body. */
function mutateBytes(rng: Prng, bytes: Uint8Array): [Uint8Array, string] {
  const at = rng.int(bytes.length + 1);
  switch (rng.int(9)) {
    case 0: return [bytes.subarray(0, at), `truncated at ${at}`];
    case 1: {
      const g = rng.pick(GARBAGE);
      return [concat(bytes, UTF8.encode(g)), `trailing ${JSON.stringify(g)}`];
    }
    case 2: return [concat(BOM, bytes), 'a BOM'];
    case 3: return [concat(BOM, BOM, bytes), 'two BOMs'];
    case 4: return [concat(bytes.subarray(0, at), [0], bytes.subarray(at)), `a NUL byte at ${at}`];
    case 5: {
      const bad = rng.pick(BAD_UTF8);
      return [concat(bytes.subarray(0, at), bad, bytes.subarray(at)), `bytes ${bad.map((b) => b.toString(16)).join(' ')} at ${at}`];
    }
    case 6: {
      const copy = bytes.slice();
      if (copy.length > 0) copy[Math.min(at, copy.length - 1)] ^= 1 << rng.int(8);
      return [copy, `a bit flipped at ${at}`];
    }
    case 7: return [UTF8.encode(rng.pick(['', ' ', '\n\r\t ', 'null', '[]', '{}', '"x"', '0', 'true', '\ufeff'])), 'a tiny body'];
    default: return [concat(UTF8.encode(rng.pick([' ', '\n', '\t\r\n '])), bytes, UTF8.encode('\n')), 'surrounding whitespace'];
  }
}

/**
 * Case `index` of a sweep: a seed review, one to three structural mutations, then (one case in five) a
 * byte-level one. Deterministic in the PRNG's state.
 */
export function fuzzCase(rng: Prng, seeds: readonly Obj[], limits: MutationLimits): FuzzCase {
  const raw = new RawText();
  let tree: unknown = structuredClone(rng.pick(seeds));
  const steps: string[] = [];
  for (let i = 1 + rng.int(3); i > 0; i--) {
    const [next, what] = mutateTree(rng, raw, tree, limits);
    tree = next;
    steps.push(what);
  }
  let body: Uint8Array = UTF8.encode(raw.render(tree));
  if (rng.chance(0.2)) {
    const [bytes, what] = mutateBytes(rng, body);
    body = bytes;
    steps.push(what);
  }
  return { name: steps.join('; '), body };
}
