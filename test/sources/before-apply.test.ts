/**
 * RefresherOptions.beforeApply: the platform's work with a new set's documents (the Node server encodes a
 * large set for its review workers a slice at a time) runs once the set is built and before it is applied,
 * with the documents the state will carry; stop() ends it and nothing is applied; its own failure is
 * logged and the set applied all the same.
 */
import { describe, expect, it } from 'vitest';
import type { ParsedSource } from '../../src/policyset/index.js';
import type { LogRecord } from '../../src/server/index.js';
import { PolicySetRefresher, type FetchResult, type PolicySource, type SourceEntry } from '../../src/sources/index.js';
import { labelPolicy } from './helpers.js';

const TEXT = labelPolicy('a', 'team', 'one');

function oneFile(): PolicySource {
  return {
    uri: 'memory://one',
    list: async (): Promise<SourceEntry[]> => [{ name: 'one.yaml', label: 'one.yaml', version: 'v1' }],
    fetch: async (): Promise<FetchResult> => ({ status: 'fetched', version: 'v1', text: TEXT }),
  };
}

describe('work before a new set is applied', () => {
  it('gets the documents the applied state carries and their size, before the set is in force', async () => {
    let seen: { inputs: readonly ParsedSource[]; bytes: number; setInForce: boolean } | undefined;
    const r: PolicySetRefresher = new PolicySetRefresher({
      name: 'default',
      sources: [oneFile()],
      intervalMs: 0,
      beforeApply: async (inputs, { bytes }) => {
        await new Promise((resolve) => setImmediate(resolve));
        seen = { inputs, bytes, setInForce: r.provider().set !== undefined };
      },
    });
    expect((await r.refresh()).outcome).toBe('applied');
    expect(seen?.setInForce).toBe(false);
    expect(seen?.bytes).toBe(Buffer.byteLength(TEXT));
    expect(r.provider().inputs).toBe(seen?.inputs);
    expect(r.provider().set?.counts.mutatingAdmissionPolicies).toBe(1);
  });

  it('is ended by stop(), and nothing is applied', async () => {
    const logs: LogRecord[] = [];
    let aborted = false;
    const r: PolicySetRefresher = new PolicySetRefresher({
      name: 'default',
      sources: [oneFile()],
      intervalMs: 0,
      logger: (l) => logs.push(l),
      beforeApply: (_inputs, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => ((aborted = true), reject(signal.reason)));
          setImmediate(() => r.stop());
        }),
    });
    const result = await r.refresh();
    expect(aborted).toBe(true);
    expect(result.outcome).toBe('failed');
    expect(r.provider().set).toBeUndefined();
    expect(logs.map((l) => l.msg)).toContain('policy refresh stopped');
    expect(logs.map((l) => l.msg)).not.toContain('policy set preparation failed');
  });

  it('that fails is logged, and the set is applied all the same', async () => {
    const logs: LogRecord[] = [];
    const r = new PolicySetRefresher({ name: 'default', sources: [oneFile()], intervalMs: 0, logger: (l) => logs.push(l), beforeApply: async () => Promise.reject(new Error('no room')) });
    expect((await r.refresh()).outcome).toBe('applied');
    expect(r.provider().set?.counts.mutatingAdmissionPolicies).toBe(1);
    expect(logs.find((l) => l.msg === 'policy set preparation failed')).toMatchObject({ level: 'warn', policySet: 'default', error: 'no room' });
  });
});
