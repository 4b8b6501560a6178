/**
 * A JSON patch of many insertions or removals in one array (a MAP JSONPatch built by `map` over the
 * containers, a Kyverno patch list): an array the patch already copied is edited in place, so n appends
 * cost O(n), not n copies of the array (20,000 appends took 26 s; here they must end well inside a
 * review deadline of 10 s, which on the old code they passed). The in-place edits must keep the
 * semantics: seeded random sequences of add / remove / replace / move / copy on arrays, with float-literal
 * marks, give what a plain model gives, on every flavour, and never touch the input.
 */
import { describe, expect, it } from 'vitest';
import { ReviewGuard } from '../../src/guard/index.js';
import { isFloatLiteral, parseJson, type JsonValue } from '../../src/json/index.js';
import { applyPatch, type Flavour, type Operation } from '../../src/jsonpatch/index.js';
import { deepFreeze } from '../json/helpers.js';

describe('many insertions and removals in one array', () => {
  it('20,000 appends, then 20,000 removals from the front, within a review deadline', () => {
    const n = 20_000;
    const appends: Operation[] = Array.from({ length: n }, (_, i) => ({ op: 'add', path: '/items/-', value: { i } }));
    const guard = new ReviewGuard({ deadlineMs: 10_000, maxValueBytes: 1 << 30 });
    const grown = applyPatch(deepFreeze({ items: [] }), appends, 'rfc6902', guard);
    expect(grown.ok).toBe(true);
    if (!grown.ok) return;
    const items = (grown.doc as { items: { i: number }[] }).items;
    expect(items.length).toBe(n);
    expect(items.every((item, i) => item.i === i)).toBe(true);

    const removals: Operation[] = Array.from({ length: n - 1 }, () => ({ op: 'remove', path: '/items/0' }));
    const shrunk = applyPatch(grown.doc, removals, 'kubernetes', guard);
    expect(shrunk.ok && shrunk.doc).toEqual({ items: [{ i: n - 1 }] });
    // The first result is left as it was.
    expect(items.length).toBe(n);
  });
});

describe('in-place array edits agree with a plain model', () => {
  const flavours: Flavour[] = ['rfc6902', 'kubernetes', 'kyverno'];

  function random(seed: number): (k: number) => number {
    let s = seed;
    return (k) => {
      s = (s * 1103515245 + 12345) % 2 ** 31;
      return s % k;
    };
  }

  /** The model: arrays of [value, isFloat] pairs edited with splice. */
  type Cell = [number | string, boolean];

  it('300 seeded sequences per flavour (adds, removes, replaces, moves, copies; float marks kept)', () => {
    for (const flavour of flavours) {
      for (let round = 0; round < 300; round++) {
        const r = random(round + 1);
        const initial: Cell[][] = [0, 1].map(() => Array.from({ length: r(6) }, (): Cell => (r(2) === 0 ? [r(9), r(2) === 0] : [`s${r(9)}`, false])));
        // The source text writes floats as `n.0`, so parseJson marks them.
        const text = `{"a":[${initial[0].map(cellText).join(',')}],"b":[${initial[1].map(cellText).join(',')}]}`;
        const doc = deepFreeze(parseJson(text));
        const model = initial.map((list) => list.map((c): Cell => [...c]));
        const ops: Operation[] = [];
        for (let k = 0; k < 40; k++) {
          const which = r(2);
          const list = model[which];
          const name = which === 0 ? 'a' : 'b';
          const kind = r(5);
          if (kind === 0 || list.length === 0) {
            const at = r(list.length + 1);
            const cell: Cell = r(2) === 0 ? [r(9), r(2) === 0] : [`n${k}`, false];
            list.splice(at, 0, cell);
            ops.push(withFloat({ op: 'add', path: `/${name}/${at === list.length - 1 && r(2) === 0 ? '-' : at}`, value: cell[0] }, cell[1]));
          } else if (kind === 1) {
            const at = r(list.length);
            list.splice(at, 1);
            ops.push({ op: 'remove', path: `/${name}/${at}` });
          } else if (kind === 2) {
            const at = r(list.length);
            const cell: Cell = [r(9), r(2) === 0];
            list[at] = cell;
            ops.push(withFloat({ op: 'replace', path: `/${name}/${at}`, value: cell[0] }, cell[1]));
          } else {
            const other = model[1 - which];
            const from = r(list.length);
            const to = r(other.length + 1);
            const cell = list[from];
            if (kind === 3) list.splice(from, 1);
            other.splice(to, 0, [...cell]);
            ops.push({ op: kind === 3 ? 'move' : 'copy', from: `/${name}/${from}`, path: `/${which === 0 ? 'b' : 'a'}/${to}` });
          }
        }
        const result = applyPatch(doc, ops, flavour);
        const label = `${flavour} round ${round}: ${JSON.stringify(ops)}`;
        expect(result.ok, label).toBe(true);
        if (!result.ok) continue;
        const out = result.doc as Record<string, JsonValue[]>;
        for (const [i, name] of ['a', 'b'].entries()) {
          expect(out[name], label).toEqual(model[i].map((c) => c[0]));
          expect(out[name].map((_, j) => isFloatLiteral(out[name], j)), label).toEqual(model[i].map((c) => c[1] && typeof c[0] === 'number'));
        }
        // The frozen input is unchanged.
        expect(doc).toEqual(parseJson(text));
      }
    }
  });

  function cellText([v, isFloat]: Cell): string {
    return typeof v === 'number' ? (isFloat ? `${v}.0` : String(v)) : JSON.stringify(v);
  }

  /** An operation whose integral value is a float literal (as a CEL double or a `1.0` in the text). */
  function withFloat(op: Operation, isFloat: boolean): Operation {
    if (!isFloat) return op;
    return parseJson(JSON.stringify(op).replace(/"value":(\d+)/, '"value":$1.0')) as unknown as Operation;
  }
});
