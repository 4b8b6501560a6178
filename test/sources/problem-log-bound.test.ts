/**
 * Each applied set logs its problems again; a source of thousands of broken documents wrote as many
 * `policy problem` lines at every refresh that changed the set. The refresher's log now holds the first
 * MAX_LOGGED_PROBLEMS of them and one line counting the rest; the same for policies no binding names
 * (`policy has no binding`), which /readyz lists as warnings, the first READYZ_MAX_WARNINGS of them. A
 * problem's message that quotes a long value is cut in its middle.
 */
import { describe, expect, it } from 'vitest';
import type { LogRecord } from '../../src/server/index.js';
import { MAX_LOGGED_PROBLEM_MESSAGE, MAX_LOGGED_PROBLEMS } from '../../src/sources/refresher.js';
import { PolicySetRefresher, type FetchResult, type PolicySource, type SourceEntry } from '../../src/sources/index.js';
import { createApp } from '../../src/server/index.js';
import { READYZ_MAX_WARNINGS } from '../../src/server/routes/probes.js';
import { labelPolicy } from './helpers.js';

/** One in-memory object per document, each a version number. */
class MemorySource implements PolicySource {
  readonly uri = 'memory://test';
  readonly docs = new Map<string, { text: string; version: number }>();
  put(name: string, text: string): void {
    this.docs.set(name, { text, version: (this.docs.get(name)?.version ?? 0) + 1 });
  }
  async list(): Promise<SourceEntry[]> {
    return [...this.docs].map(([name, d]) => ({ name, label: `memory://${name}`, version: String(d.version) }));
  }
  async fetch(entry: SourceEntry): Promise<FetchResult> {
    const d = this.docs.get(entry.name);
    return d ? { status: 'fetched', version: String(d.version), text: d.text } : { status: 'gone' };
  }
}

const BROKEN = 'apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: broken}\nspec: {mutations: 3}\n';

describe('policy problems in the refresher log', () => {
  it('logs the first problems of each applied set and counts the rest in one line', async () => {
    const source = new MemorySource();
    source.put('good.yaml', labelPolicy('good', 'team', 'a'));
    for (let i = 0; i < 300; i++) source.put(`broken-${String(i).padStart(3, '0')}.yaml`, BROKEN.replace('broken', `broken-${i}`));
    const logs: LogRecord[] = [];
    const r = new PolicySetRefresher({ name: 'default', sources: [source], logger: (l) => logs.push(l) });

    for (let apply = 0; apply < 2; apply++) {
      if (apply > 0) source.put('good.yaml', labelPolicy('good', 'team', 'b'));
      logs.length = 0;
      expect((await r.refresh()).outcome).toBe('applied');
      const problems = r.provider().set!.problems;
      expect(problems.length).toBeGreaterThan(MAX_LOGGED_PROBLEMS);
      const lines = logs.filter((l) => l.msg === 'policy problem');
      expect(lines.length).toBe(MAX_LOGGED_PROBLEMS);
      expect(lines.map((l) => l.source)).toEqual(problems.slice(0, MAX_LOGGED_PROBLEMS).map((p) => p.source));
      expect(logs.filter((l) => l.msg === 'policy problems not logged')).toEqual([
        { level: 'warn', msg: 'policy problems not logged', policySet: 'default', count: problems.length - MAX_LOGGED_PROBLEMS, problems: problems.length },
      ]);
      // The set itself keeps them all, and its counts too.
      expect(logs.at(-1)).toMatchObject({ msg: 'policy set applied', counts: { problems: problems.length } });
    }
  });

  it('logs every problem, and no count line, when they are few', async () => {
    const source = new MemorySource();
    source.put('good.yaml', labelPolicy('good', 'team', 'a'));
    source.put('broken.yaml', BROKEN);
    const logs: LogRecord[] = [];
    const r = new PolicySetRefresher({ name: 'default', sources: [source], logger: (l) => logs.push(l) });
    await r.refresh();
    expect(logs.filter((l) => l.msg === 'policy problem').length).toBe(r.provider().set!.problems.length);
    expect(logs.some((l) => l.msg === 'policy problems not logged')).toBe(false);
  });

  it('logs the first policies with no binding and counts the rest in one line; /readyz lists the first', async () => {
    const source = new MemorySource();
    // A policy document alone (the binding is the policy text's second document).
    const unbound = (name: string) => labelPolicy(name, 'team', 'a').split('\n---\n')[0];
    for (let i = 0; i < 300; i++) source.put(`unbound-${String(i).padStart(3, '0')}.yaml`, unbound(`unbound-${i}`));
    const logs: LogRecord[] = [];
    const r = new PolicySetRefresher({ name: 'default', sources: [source], logger: (l) => logs.push(l) });
    expect((await r.refresh()).outcome).toBe('applied');
    expect(r.provider().set!.counts.mutatingAdmissionPolicies).toBe(300);
    expect(logs.filter((l) => l.msg === 'policy has no binding').length).toBe(MAX_LOGGED_PROBLEMS);
    expect(logs.filter((l) => l.msg === 'policies with no binding not logged')).toEqual([
      { level: 'warn', msg: 'policies with no binding not logged', policySet: 'default', count: 300 - MAX_LOGGED_PROBLEMS, policies: 300 },
    ]);

    const { app } = createApp({ policies: r.provider });
    const body = (await (await app.fetch(new Request('https://amender.test/readyz'))).json()) as { warnings: string[]; warningCount: number; warningsOmitted: number };
    expect(body.warnings).toEqual(r.provider().warnings!.slice(0, READYZ_MAX_WARNINGS));
    expect(body.warningCount).toBe(300);
    expect(body.warningsOmitted).toBe(300 - READYZ_MAX_WARNINGS);
  });

  it('cuts the message of a problem that quotes a long value in its middle', async () => {
    const source = new MemorySource();
    const expression = Array.from({ length: 20000 }, (_, i) => `"k${i}"`).join(' + ');
    source.put('long.yaml', labelPolicy('long', 'team', 'a', expression));
    const logs: LogRecord[] = [];
    const r = new PolicySetRefresher({ name: 'default', sources: [source], logger: (l) => logs.push(l) });
    await r.refresh();
    const whole = r.provider().set!.problems[0].message;
    expect(whole.length).toBeGreaterThan(expression.length);
    const line = logs.find((l) => l.msg === 'policy problem')!;
    const message = line.message as string;
    expect(message.length).toBeLessThan(MAX_LOGGED_PROBLEM_MESSAGE + 100);
    expect(message).toContain(`…[truncated: ${whole.length} characters]…`);
    expect(whole.endsWith(message.slice(-500))).toBe(true);
    expect(line).toMatchObject({ source: 'memory://long.yaml', name: 'long', effect: 'ignored' });
  });
});
