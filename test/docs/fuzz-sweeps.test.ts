/**
 * README.md's Development section lists the seeded fuzz sweeps that run with the tests: every
 * test/reliability/fuzz-*.test.ts is named there, and the count it gives ("Eleven seeded fuzz sweeps") is
 * the number of those files, so a sweep added without its line fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../node/built.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen'];

describe("README.md's fuzz sweeps", () => {
  it('names every seeded sweep of test/reliability, and counts them', () => {
    const start = README.indexOf('\n## Development');
    const section = README.slice(start, README.indexOf('\n## ', start + 1)).replace(/\s+/g, ' ');
    const sweeps = readdirSync(join(ROOT, 'test/reliability')).filter((f) => /^fuzz-.*\.test\.ts$/.test(f));
    expect(sweeps.length).toBeGreaterThan(10);
    const count = /(\w+) seeded fuzz sweeps run with the tests/.exec(section);
    expect(count, 'the sentence that counts the sweeps').not.toBeNull();
    expect(NUMBERS.indexOf(count![1].toLowerCase()), `"${count![1]} seeded fuzz sweeps"`).toBe(sweeps.length);
    for (const file of sweeps) expect(section, `README's Development names ${file}`).toContain(`\`test/reliability/${file}\``);
  });
});
