import { copyNumberMark, hasNumberMarks, isFloatLiteral, setNumberMark, setOwn, sliceArray, type NumberMark } from '../json/index.js';
import type { JsonArray, JsonObject, JsonValue } from '../json/index.js';

export type Container = JsonObject | JsonArray;

/**
 * Where an operation acts: `chain[0]` is the document root, `keys[i]` (an object key or a resolved array
 * index) leads from `chain[i]` to `chain[i + 1]`, and the last container is the one the op edits.
 * Containers in the chain may still be the caller's; `WorkingCopy.writable` swaps in private copies.
 */
export interface Location {
  chain: Container[];
  keys: (string | number)[];
}

export function isContainer(v: JsonValue | undefined): v is Container {
  return typeof v === 'object' && v !== null;
}

/**
 * Copy-on-write view of a document for one patch application. Containers the patch touches are copied
 * once (shallowly) and then edited in place; every untouched subtree stays shared with the input, which
 * is never mutated. If the patch fails, the working copy is simply dropped.
 *
 * Numbers that the source wrote as floats (`1.0`, see src/json/float-literals.ts) or as integers past
 * ±2^53 (src/json/exact-integers.ts) are marked per container slot; every copy and every edit here
 * carries those marks along so that CEL still reads them as it did before the patch.
 */
export class WorkingCopy {
  root: JsonValue;
  /**
   * The containers this working copy made. Most patches own a handful, where a scan of a short list is
   * cheaper than making and filling a Set; past OWNED_LIST_MAX they move to one.
   */
  private ownedList: object[] = [];
  private ownedSet: Set<object> | undefined;

  constructor(root: JsonValue) {
    this.root = root;
  }

  /** A location at the root container (the root must be a container). */
  rootLocation(): Location {
    return { chain: [this.root as Container], keys: [] };
  }

  setRoot(value: JsonValue): void {
    this.root = value;
  }

  /**
   * Makes every container along `loc` private to this working copy; returns the last one. `adding`: the
   * caller adds a member to the last container (see copyObject).
   */
  writable(loc: Location, length = loc.chain.length, adding = false): Container {
    const { chain, keys } = loc;
    let parent: Container | undefined;
    for (let i = 0; i < length; i++) {
      let c = chain[i];
      if (!this.owns(c)) {
        c = this.own(copyContainer(c, adding && i === length - 1, i));
        chain[i] = c;
        if (parent === undefined) this.root = c;
        else attach(parent, keys[i - 1], c);
      }
      parent = c;
    }
    return parent as Container;
  }

  /** Sets an object member (adding or overwriting it); `mark`: the literal form of a number value. */
  setMember(loc: Location, key: string, value: JsonValue, mark: NumberMark): void {
    // Only how the copy is made depends on it (see copyObject), so a plain read does: an inherited member
    // (`toString`) only makes the copy the other way. (The own-property test that would follow a miss is a
    // second lookup of a key string the path was cut from, which V8 must hash and look up each time.)
    const adding = (loc.chain[loc.chain.length - 1] as JsonObject)[key] === undefined;
    let obj = this.writable(loc, loc.chain.length, adding) as JsonObject;
    if (mark !== 'float' && isFloatLiteral(obj, key)) {
      // The slot's float mark would wrongly outlive the value it described: rebuild without it.
      obj = this.replaceLast(loc, copyObject(obj, key));
    }
    setOwn(obj, key, value);
    setNumberMark(obj, key, mark);
  }

  deleteMember(loc: Location, key: string): void {
    const obj = this.writable(loc) as JsonObject;
    delete obj[key];
  }

  /** Overwrites an existing array element. */
  setIndex(loc: Location, index: number, value: JsonValue, mark: NumberMark): void {
    let arr = this.writable(loc) as JsonArray;
    if (mark !== 'float' && isFloatLiteral(arr, index)) {
      arr = this.replaceLast(loc, copyArray(arr, index));
    }
    arr[index] = value;
    setNumberMark(arr, index, mark);
  }

  /**
   * Inserts before `index` (`index === length` appends). An array this working copy made is edited in
   * place (a patch of n appends would otherwise copy the array n times: quadratic time and garbage);
   * the caller's array is copied once with the element in its place.
   */
  insertIndex(loc: Location, index: number, value: JsonValue, mark: NumberMark): void {
    const arr = loc.chain[loc.chain.length - 1] as JsonArray;
    if (this.editsInPlace(arr)) {
      if (index === arr.length) arr.push(value);
      else arr.splice(index, 0, value);
      setNumberMark(arr, index, mark);
      return;
    }
    const out = sliceArray(arr, 0, index);
    out.push(value);
    for (let i = index; i < arr.length; i++) out.push(arr[i]);
    copyArrayMarks(arr, out, index, 1);
    setNumberMark(out, index, mark);
    this.replaceLast(loc, out);
  }

  /** Appends `count` nulls to the array at `loc` (appending leaves every float mark where it is). */
  appendNulls(loc: Location, count: number): void {
    const arr = this.writable(loc) as JsonArray;
    for (let i = 0; i < count; i++) arr.push(null);
  }

  /** Removes the element at `index`: in place in an array this working copy made (see insertIndex). */
  removeIndex(loc: Location, index: number): void {
    const arr = loc.chain[loc.chain.length - 1] as JsonArray;
    if (this.editsInPlace(arr)) {
      if (index === arr.length - 1) arr.pop();
      else arr.splice(index, 1);
      return;
    }
    const out = sliceArray(arr, 0, index);
    for (let i = index + 1; i < arr.length; i++) out.push(arr[i]);
    copyArrayMarks(arr, out, index, -1);
    this.replaceLast(loc, out);
  }

  /**
   * A value to place somewhere else in the document (`copy`). Subtrees the caller owns are shared as
   * they are (nothing edits them in place); containers this working copy created are copied, or a later
   * edit through one place would show through the other.
   */
  detach(value: JsonValue): JsonValue {
    if (!isContainer(value) || !this.owns(value)) return value;
    if (Array.isArray(value)) {
      const out = copyArray(value);
      for (let i = 0; i < out.length; i++) out[i] = this.detach(out[i]);
      return out;
    }
    const out = copyObject(value);
    for (const k of Object.keys(out)) {
      const v = out[k];
      if (isContainer(v)) setOwn(out, k, this.detach(v));
    }
    return out;
  }

  /**
   * Whether an insertion or removal may shift `arr`'s elements in place: it is this working copy's, and
   * no element is marked as a float literal (the marks are kept per index; such an array is rebuilt
   * with its marks moved, as the caller's arrays are).
   */
  private editsInPlace(arr: JsonArray): boolean {
    return !hasNumberMarks(arr) && this.owns(arr);
  }

  /** Puts a fresh private container in place of the last one of `loc`. */
  private replaceLast<T extends Container>(loc: Location, fresh: T): T {
    const n = loc.chain.length - 1;
    this.own(fresh);
    loc.chain[n] = fresh;
    if (n === 0) this.root = fresh;
    else attach(this.writable(loc, n), loc.keys[n - 1], fresh);
    return fresh;
  }

  own<T extends object>(c: T): T {
    if (this.ownedSet !== undefined) {
      this.ownedSet.add(c);
    } else if (this.ownedList.length < OWNED_LIST_MAX) {
      this.ownedList.push(c);
    } else {
      this.ownedSet = new Set(this.ownedList);
      this.ownedSet.add(c);
    }
    return c;
  }

  private owns(c: object): boolean {
    if (this.ownedSet !== undefined) return this.ownedSet.has(c);
    const list = this.ownedList;
    for (let i = 0; i < list.length; i++) if (list[i] === c) return true;
    return false;
  }
}

const OWNED_LIST_MAX = 16;

function attach(parent: Container, key: string | number, child: Container): void {
  if (Array.isArray(parent)) parent[key as number] = child;
  else setOwn(parent, key as string, child);
}

/** `depth`: the container's place in the chain, 0 for the root (see copyObject). */
function copyContainer(c: Container, adding: boolean, depth: number): Container {
  return Array.isArray(c) ? copyArray(c) : copyObject(c, undefined, adding, depth);
}

/**
 * Shallow copy with float marks (except the one at `skip`). A spread copy is the fastest to make and to
 * overwrite members of (and keeps `__proto__` an own data key), but V8 makes adding a member to one
 * several times dearer than the whole copy: a copy that is `for` an added member is built member by
 * member (`setOwn` keeps `__proto__` an own data key there). `depth` as for copyContainer (2 and deeper
 * are one).
 */
function copyObject(src: JsonObject, skip?: string, adding = false, depth = 2): JsonObject {
  // Most containers hold no marked number: one lookup instead of a look at each member.
  const marked = hasNumberMarks(src);
  if (adding) {
    const out: JsonObject = {};
    for (const k in src) {
      const v = src[k];
      setOwn(out, k, v);
      if (marked && typeof v === 'number' && k !== skip) copyNumberMark(src, k, out, k);
    }
    return out;
  }
  // One of three spread sites by depth. V8 copies an object by spread quickly while its site has seen at
  // most four object shapes (the copy is made from the shape); past that the site copies member by member
  // through a generic runtime path, about eight times dearer. A single site sees the shapes of roots,
  // `metadata`, `spec`, containers and their copies; the root of a review's object, and its direct
  // members, each keep to a few shapes.
  const out: JsonObject = depth === 0 ? { ...src } : depth === 1 ? { ...src } : { ...src };
  if (!marked) return out;
  for (const k in out) {
    if (typeof out[k] === 'number' && k !== skip) copyNumberMark(src, k, out, k);
  }
  return out;
}

function copyArray(src: JsonArray, skip?: number): JsonArray {
  const out = sliceArray(src);
  if (!hasNumberMarks(src)) return out;
  for (let i = 0; i < out.length; i++) {
    if (typeof out[i] === 'number' && i !== skip) copyNumberMark(src, i, out, i);
  }
  return out;
}

/** Carries marks from `src` to `out` where elements from `at` on moved by `shift` (+1 insert, -1 remove). */
function copyArrayMarks(src: JsonArray, out: JsonArray, at: number, shift: 1 | -1): void {
  if (!hasNumberMarks(src)) return;
  for (let i = 0; i < src.length; i++) {
    if (typeof src[i] !== 'number' || (shift === -1 && i === at)) continue;
    copyNumberMark(src, i, out, i < at ? i : i + shift);
  }
}
