import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../src/cli/args.js';

const spec = { policies: 'list', input: 'string', patch: 'boolean' } as const;

describe('parseArgs', () => {
  it('reads list options up to the next option, strings, flags and positionals', () => {
    const a = parseArgs(['--policies', 'a.yaml', 'dir/', '--input', '-', '--patch', 'extra'], spec);
    expect(a.options.get('policies')).toEqual(['a.yaml', 'dir/']);
    expect(a.options.get('input')).toBe('-');
    expect(a.options.get('patch')).toBe(true);
    expect(a.positionals).toEqual(['extra']);
  });

  it('accepts --name=value and repeated list options', () => {
    const a = parseArgs(['--policies=a', '--policies', 'b', '--input=x.json', 'pos'], { ...spec, policies: 'list' });
    expect(a.options.get('policies')).toEqual(['a', 'b']);
    expect(a.options.get('input')).toBe('x.json');
    expect(a.positionals).toEqual(['pos']);
  });

  it('keeps positionals and everything after --', () => {
    const a = parseArgs(['dir', '--patch', '--', '--policies'], spec);
    expect(a.positionals).toEqual(['dir', '--policies']);
  });

  it('refuses unknown, valueless and repeated options with a clear message', () => {
    expect(() => parseArgs(['--nope'], spec)).toThrow(new UsageError('unknown option --nope'));
    expect(() => parseArgs(['--input'], spec)).toThrow('option --input needs a value');
    expect(() => parseArgs(['--input', '--patch'], spec)).toThrow('option --input needs a value');
    expect(() => parseArgs(['--policies', '--patch'], spec)).toThrow('option --policies needs at least one value');
    expect(() => parseArgs(['--input', 'a', '--input', 'b'], spec)).toThrow('option --input given twice');
    expect(() => parseArgs(['--patch=yes'], spec)).toThrow('option --patch takes no value');
    expect(() => parseArgs(['--__proto__'], spec)).toThrow('unknown option --__proto__');
  });
});
