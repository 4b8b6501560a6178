/**
 * Where a MAP review spends its CPU: `node --import ./bench/loader/register.mjs bench/profile-map.ts
 * [seconds]` runs `answerReviewText` on the review and policy set of bench/suites/05-review.ts in a loop
 * (default 10 s) under the inspector's CPU profiler, then prints the top functions by self time and by
 * total time (TOP=n lines, default 40). FOCUS=<function name> also prints who calls that function and
 * what its time is spent in, one level down. Not part of `npm run bench`: profiling slows what it
 * measures (read the proportions, not the figures), and on a loaded machine a proportion of a few
 * percent is within the noise.
 */
import { pod4k } from './fixtures.js';
import { generatedPolicies } from './suites/05-review.js';
import { buildPolicySet, parseDocuments } from '../src/policyset/index.js';
import { loadPolicies } from '../src/cli/load.js';
import { nodeCliIO } from '../src/cli/node-io.js';
import { answerReviewText } from '../src/server/index.js';
import { profileLoop, type Profile, type ProfileNode } from './profile-session.js';

const seconds = Number(process.argv[2] ?? 10);
const bundled = await loadPolicies(['bundled'], nodeCliIO());
const set = buildPolicySet([...bundled.parsed, parseDocuments('bench.yaml', generatedPolicies())]);
const text = JSON.stringify(pod4k());
for (let i = 0; i < 500; i++) await answerReviewText(text, set, 1000);

const { profile, runs: n } = await profileLoop(() => answerReviewText(text, set, 1000), seconds);
console.log(`${n} reviews in ${seconds} s: ${((seconds * 1e6) / n).toFixed(1)} µs each (profiled)`);
summarize(profile);

function summarize(p: Profile): void {
  const byId = new Map(p.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of p.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const label = (node: ProfileNode) => {
    const f = node.callFrame;
    const file = f.url.replace(/^.*\/(src|bench|node_modules)\//, '$1/');
    return `${f.functionName || '(anon)'} ${file}:${f.lineNumber + 1}`;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let all = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = Math.min(p.timeDeltas[i] ?? 0, 500);
    all += dt;
    const node = byId.get(p.samples[i]);
    if (!node) continue;
    const l = label(node);
    self.set(l, (self.get(l) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const k = label(byId.get(id)!);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + dt);
    }
  }
  const top = (m: Map<string, number>, title: string) => {
    console.log(`\n## ${title}`);
    for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) {
      console.log(`${((100 * v) / all).toFixed(1).padStart(5)}%  ${k}`);
    }
  };
  top(self, 'self time');
  top(total, 'total time');
  // FOCUS=<function name>: who calls it, and what its time is spent in (inclusive, one level down).
  const focus = process.env.FOCUS;
  if (!focus) return;
  const callers = new Map<string, number>();
  const callees = new Map<string, number>();
  for (let i = 0; i < p.samples.length; i++) {
    const dt = Math.min(p.timeDeltas[i] ?? 0, 500);
    const stack: ProfileNode[] = [];
    for (let id: number | undefined = p.samples[i]; id !== undefined; id = parent.get(id)) stack.push(byId.get(id)!);
    // The outermost frame of the focused function on this stack.
    let at = -1;
    for (let j = stack.length - 1; j >= 0; j--) if (stack[j].callFrame.functionName === focus) { at = j; break; }
    if (at < 0) continue;
    const caller = at + 1 < stack.length ? label(stack[at + 1]) : '(none)';
    callers.set(caller, (callers.get(caller) ?? 0) + dt);
    const callee = at > 0 ? label(stack[at - 1]) : '(self)';
    callees.set(callee, (callees.get(callee) ?? 0) + dt);
  }
  top(callers, `callers of ${focus}`);
  top(callees, `callees of ${focus}`);
}
