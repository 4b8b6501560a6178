/**
 * README.md's CLI section against `amender <command> --help`: each command's synopsis (the code span that
 * opens its bullet, `- \`amender apply …\` —`) is the first usage form its help prints, word for word, so
 * an option added to a command's usage shows in the README's synopsis too (test/node/readme.test.ts checks
 * that the option is named somewhere in the bullet, which a sentence far below the synopsis satisfies).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { fakeIO } from '../cli/fake-io.js';
import { ROOT } from '../node/built.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

const words = (text: string) => text.replace(/\s+/g, ' ').trim();

async function help(args: string[]): Promise<string> {
  const io = fakeIO({});
  await runCli(args, io);
  return io.stdout;
}

/** The first usage form of a command's help: from `usage: ` to the first line that is not a continuation. */
function firstUsage(text: string): string {
  const lines = text.split('\n');
  const form = [lines[0].replace(/^usage: /, '')];
  const indent = lines[0].indexOf('amender') - 'usage: '.length; // continuation lines align with the command's options
  for (const line of lines.slice(1)) {
    if (!/^\s+\[/.test(line) || line.search(/\S/) <= indent) break;
    form.push(line);
  }
  return words(form.join(' ').replace(/\s+<.*$/, ''));
}

describe("README.md's CLI synopses", () => {
  it('are the usage each command prints', async () => {
    const commands = [...(await help(['--help'])).matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1]);
    expect(commands).toEqual(expect.arrayContaining(['review', 'apply', 'test', 'webhook-config']));
    const section = README.slice(README.indexOf('\n## CLI'), README.indexOf('\n### ', README.indexOf('\n## CLI')));
    for (const command of commands) {
      const synopsis = new RegExp(`\\n- \`(amender ${command}\\b[^\`]*)\``).exec(section);
      expect(synopsis, `README's bullet of amender ${command}`).not.toBeNull();
      const usage = firstUsage(await help([command, '--help']));
      expect(words(synopsis![1]).replace(/\s+<.*$/, ''), `README's synopsis of amender ${command}`).toBe(usage);
    }
  });
});
