/**
 * Issue 12 item 3: the layering of src/ (.dependency-cruiser.cjs) is checked by dependency-cruiser in
 * `npm test`. The tree passes; an upward import, a folder entered around its index.ts, a cycle, a platform
 * module in a core folder and a folder without a layer each fail it (files added to a copy of src/).
 */
import { describe, expect, it } from 'vitest';
import { checkLayers, formatViolations } from '../../scripts/layers.js';

describe('the layering of src/', () => {
  it('has no violation', { timeout: 120_000 }, async () => {
    const { modules, violations } = await checkLayers();
    expect(modules).toBeGreaterThan(100);
    expect(violations, formatViolations(violations)).toEqual([]);
  });

  it('fails an upward import, a bypassed index.ts, a cycle, a platform module in the core and an unplaced folder', { timeout: 120_000 }, async () => {
    const { violations } = await checkLayers({
      overlay: {
        // json is the lowest layer: importing the engine goes up.
        'src/json/upward.ts': "import { evaluate } from '../engine/index.js';\nexport const e = evaluate;\n",
        // Another folder's module, not its face.
        'src/engine/bypass.ts': "import { parseJson } from '../json/parse.js';\nexport const p = parseJson;\n",
        'src/guard/cycle-a.ts': "import { b } from './cycle-b.js';\nexport const a = () => b;\n",
        'src/guard/cycle-b.ts': "import { a } from './cycle-a.js';\nexport const b = () => a;\n",
        'src/jsonpatch/platform.ts': "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
        'src/nowhere/stray.ts': "import { parseJson } from '../json/index.js';\nexport const p = parseJson;\n",
      },
    });
    const found = violations.map((v) => [v.rule, v.from, v.to]);
    expect(found).toContainEqual(['layer-json-guard-observe-settings', 'src/json/upward.ts', 'src/engine/index.ts']);
    expect(found).toContainEqual(['through-index', 'src/engine/bypass.ts', 'src/json/parse.ts']);
    expect(found).toContainEqual(['no-cycle', 'src/guard/cycle-a.ts', 'src/guard/cycle-b.ts']);
    expect(found).toContainEqual(['core-is-platform-free', 'src/jsonpatch/platform.ts', 'fs']);
    expect(found).toContainEqual(['placed-folder', 'src/nowhere/stray.ts', 'src/json/index.ts']);
  });
});
