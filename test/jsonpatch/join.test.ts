import { describe, expect, it } from 'vitest';
import { applyJsonPatch, joinPatches } from '../../src/jsonpatch/index.js';

describe('joinPatches (Kyverno JoinPatches)', () => {
  it('no chunks, or only blank ones → no patch', () => {
    expect(joinPatches([])).toEqual({ ok: true, patch: null });
    expect(joinPatches(['', '  ', '\n\t'])).toEqual({ ok: true, patch: null });
    expect(joinPatches(['[]', ' [ ] ', ''])).toEqual({ ok: true, patch: null });
  });

  it('mixes single operations and arrays into one valid JSON array', () => {
    const joined = joinPatches([
      '{"op":"add","path":"/a","value":1}',
      '',
      ' [{"op":"add","path":"/b","value":2}, {"op":"remove","path":"/a"}] ',
      '[]',
      '\n{"op":"replace","path":"/b","value":3}\n',
    ]);
    if (!joined.ok || joined.patch === null) throw new Error('expected a patch');
    const ops = JSON.parse(joined.patch);
    expect(ops.map((o: any) => o.path)).toEqual(['/a', '/b', '/a', '/b']);
    expect(applyJsonPatch({}, ops, 'kyverno')).toEqual({ ok: true, doc: { b: 3 } });
  });

  it('joins textually, so literals stay as written', () => {
    const joined = joinPatches(['{"op":"add","path":"/f","value":1.0}', '[{"op":"add","path":"/g","value":"\\u00e9"}]']);
    expect(joined).toEqual({ ok: true, patch: '[{"op":"add","path":"/f","value":1.0}, {"op":"add","path":"/g","value":"\\u00e9"}]' });
  });

  it('refuses chunks that would make the result invalid', () => {
    expect(joinPatches(['{"op":"add","path":"/a","value":1}', '{"op":'])).toMatchObject({
      ok: false,
      chunkIndex: 1,
      message: expect.stringContaining('patch chunk 1 is not valid JSON'),
    });
    expect(joinPatches(['42'])).toMatchObject({ ok: false, chunkIndex: 0 });
    expect(joinPatches(['[1, 2]'])).toMatchObject({ ok: false, message: 'patch chunk 0 must hold only operation objects' });
    expect(joinPatches(['[' + '['.repeat(2000) + ']'.repeat(2000) + ']'])).toMatchObject({ ok: false });
    expect(joinPatches([undefined as unknown as string])).toMatchObject({ ok: false, message: 'patch chunk 0 is not text' });
  });
});
