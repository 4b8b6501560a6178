import { setOwn, type JsonArray, type JsonObject } from '../json/index.js';
import { arrayAdd, findObject, getChild } from './evanphx-containers.js';
import type { EvanphxRules, Found } from './evanphx-containers.js';
import { OpFailure } from './op-failure.js';
import { formatPointer, goTokens, parseGoInt, unescapeToken } from './pointer.js';
import { isContainer } from './working-copy.js';
import type { WorkingCopy } from './working-copy.js';

/**
 * evanphx v5 `EnsurePathExistsOnAdd`, run before an `add`: walks every segment but the last and creates
 * what is missing (absent, null, or an array index past the end). The new container is an array when the
 * next segment is an `Atoi` index or `-` (pre-filled with that many nulls; `-1` counts as 0, other
 * negatives are errors) and an object otherwise. An existing array too short for an intermediate index is
 * padded with nulls first. An intermediate that exists but is a string/number/bool is an error.
 *
 * Reference quirks kept because they decide success or failure: a new object member is stored under the
 * segment as written, still escaped, so the add that follows cannot find it when the segment held `~0`/`~1`
 * (the add fails); a null array element is not replaced, the new container is inserted before it.
 * Unlike the reference, padding is bounded (`maxArrayPadding`): a hostile index cannot allocate without limit.
 *
 * Returns what `findObject` would find for the add afterwards (one walk instead of two), or undefined
 * when it would find nothing.
 */
export function ensurePathExists(wc: WorkingCopy, path: string, rules: EvanphxRules): Found | undefined {
  // The pieces of `splitGoPath` (the first one dropped), read in place: `start` is where the current
  // piece begins, `end` the `/` after it. The last piece is never walked, only returned.
  let start = path.indexOf('/') + 1;
  if (start === 0 || !isContainer(wc.root)) return findObject(wc.root, path, rules);
  const escaped = path.indexOf('~') >= 0;
  const loc = wc.rootLocation();
  // Whether the walk so far is the one findObject would take afterwards: it would not step through a
  // container created for `-` (an array add of `-` appends, but a get of `-` fails).
  let findable = true;
  let padded = 0;
  // Set once this walk created a container: every holder after it is one of those, private to the working
  // copy with the chain above it made writable already, so a member goes straight in. (Through setMember,
  // each level re-checked the whole chain: a path of d missing levels cost d², 100,000 took two minutes.)
  let created = false;
  for (let end = path.indexOf('/', start); end >= 0; start = end + 1, end = path.indexOf('/', start)) {
    const part = path.slice(start, end);
    const key = escaped ? unescapeToken(part) : part;
    const cur = loc.chain[loc.chain.length - 1];
    const child = getChild(cur, key, rules);
    const target = child.ok ? child.value : undefined;
    if (child.ok && isContainer(target)) {
      loc.chain.push(target);
      loc.keys.push(child.key);
      continue;
    }
    if (target !== undefined && target !== null) {
      const where = formatPointer(goTokens(path.slice(0, end))!);
      throw OpFailure.error(`add operation cannot create path "${path}": "${where}" holds a ${typeof target}: invalid state detected`);
    }
    if (Array.isArray(cur)) {
      const at = parseGoInt(part);
      if (at.ok && at.value >= cur.length + 1) {
        padded += at.value - cur.length;
        if (padded > rules.maxArrayPadding) throw tooMuchPadding(path, rules);
        wc.appendNulls(loc, at.value - cur.length);
      }
    }
    const nextEnd = path.indexOf('/', end + 1);
    const node = newContainer(nextEnd < 0 ? path.slice(end + 1) : path.slice(end + 1, nextEnd), path, rules);
    if (Array.isArray(node)) {
      padded += node.length;
      if (padded > rules.maxArrayPadding) throw tooMuchPadding(path, rules);
    }
    wc.own(node);
    const holder = loc.chain[loc.chain.length - 1];
    let step: string | number;
    if (Array.isArray(holder)) {
      const added = arrayAdd(wc, loc, part, node, undefined, rules);
      // The reference ignores this failure, then cannot find the path: the add fails.
      if (typeof added === 'string') throw missingPath(path);
      // A get of the same piece lands on the new container unless the piece was `-`.
      if (part === '-') findable = false;
      step = added;
    } else {
      if (key !== part) throw missingPath(path);
      if (created) setOwn(holder, part, node);
      else wc.setMember(loc, part, node, undefined);
      step = part;
    }
    created = true;
    loc.chain.push(node);
    loc.keys.push(step);
  }
  if (!findable) return undefined;
  const last = path.slice(start);
  return { loc, key: escaped ? unescapeToken(last) : last };
}

function missingPath(path: string): OpFailure {
  return OpFailure.error(`add operation does not apply: doc is missing path: "${path}": missing value`);
}

function newContainer(next: string, path: string, rules: EvanphxRules): JsonArray | JsonObject {
  const n = parseGoInt(next);
  if (!n.ok && next !== '-') return {};
  let size = n.ok ? n.value : 0;
  if (size < 0) {
    if (!rules.supportNegativeIndices) {
      throw OpFailure.error(`Unable to ensure path for invalid index: ${n.ok ? n.text : ''}: invalid index referenced`);
    }
    if (size < -1) {
      throw OpFailure.error(`Unable to ensure path for negative index other than -1: ${n.ok ? n.text : ''}: invalid index referenced`);
    }
    size = 0;
  }
  if (size > rules.maxArrayPadding) throw tooMuchPadding(path, rules);
  return new Array<null>(size).fill(null);
}

function tooMuchPadding(path: string, rules: EvanphxRules): OpFailure {
  return OpFailure.error(
    `add operation does not apply: creating "${path}" would fill more than ${rules.maxArrayPadding} array slots with null`,
  );
}
