/**
 * Where a Kyverno review spends its CPU: `node --import ./bench/loader/register.mjs
 * bench/profile-kyverno.ts [seconds] [top] [rule,…]` runs the review of `npm run bench -- 35` (parse → 10 rules →
 * reply patch text) in a loop for `seconds` (default 5) under the V8 sampling profiler and prints the
 * self time per function (top `top`, default 40), per source file, and the inclusive time per function.
 * Naming rules keeps only those (their policies' other rules are left out). Not part of `npm run bench`:
 * profiling slows what it measures, the proportions are what to read.
 */
import { pod4k } from './fixtures.js';
import { policies } from './suites/35-kyverno.js';
import type { JsonObject, JsonValue } from '../src/json/index.js';
import { createPatch } from '../src/jsonpatch/index.js';
import { runKyvernoPolicies } from '../src/kyverno/index.js';
import { profileLoop } from './profile-session.js';

const seconds = Number(process.argv[2] ?? 5);
const top = Number(process.argv[3] ?? 40);
const text = JSON.stringify(pod4k());
const only = process.argv[4]?.split(',');
// Profiling one rule or a few: the others are left out (their policies' other rules too).
const compiled = only
  ? policies()
      .map((p) => ({ ...p, rules: p.rules.filter((r) => only.includes(r.name)) }))
      .filter((p) => p.rules.length > 0)
  : policies();
const once = async () => {
  const parsed = JSON.parse(text) as { request: { object: JsonValue } & JsonObject };
  const result = await runKyvernoPolicies(compiled, { request: parsed.request as never, namespaceLabels: {} });
  return JSON.stringify(createPatch(parsed.request.object, result.object));
};

for (let i = 0; i < 2000; i++) await once(); // warm up: optimized code is what ships
const { profile, runs: reviews } = await profileLoop(once, seconds);

const byNode = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  byNode.set(profile.samples[i], (byNode.get(profile.samples[i]) ?? 0) + profile.timeDeltas[i]);
}
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
const nodeById = new Map(profile.nodes.map((n) => [n.id, n]));
const byFunction = new Map<string, number>();
const inclusive = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
const short = (url: string) => url.replace(/^file:\/\/.*?\/(src|bench|node_modules)\//, '$1/');
for (const node of profile.nodes) {
  const us = byNode.get(node.id) ?? 0;
  if (us === 0) continue;
  total += us;
  const { functionName, url, lineNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'}  ${short(url)}:${lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  // Inclusive: every function on the sample's stack, once per stack (recursion counts once).
  const onStack = new Set<string>();
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const f = nodeById.get(id)!.callFrame;
    onStack.add(`${f.functionName || '(anonymous)'}  ${short(f.url)}:${f.lineNumber + 1}`);
  }
  for (const k of onStack) inclusive.set(k, (inclusive.get(k) ?? 0) + us);
  const file = short(url) || '(native)';
  byFile.set(file, (byFile.get(file) ?? 0) + us);
}
const print = (title: string, m: Map<string, number>, n: number) => {
  console.log(`\n## ${title}`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / reviews).toFixed(1).padStart(7)} µs/review  ${k}`);
  }
};
console.log(`${reviews} reviews in ${seconds} s: ${((seconds * 1e6) / reviews).toFixed(1)} µs per review (profiled)`);
print('self time by function', byFunction, top);
print('self time by file', byFile, 25);
print('inclusive time by function (callees included)', inclusive, top);
// Callers of the functions named in PROFILE_CALLERS (comma-separated): self time of each by calling function.
for (const wanted of process.env.PROFILE_CALLERS?.split(',') ?? []) {
  const callers = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = byNode.get(node.id) ?? 0;
    if (us === 0 || node.callFrame.functionName !== wanted) continue;
    const caller = nodeById.get(parent.get(node.id)!)!.callFrame;
    const key = `${caller.functionName || '(anonymous)'}  ${short(caller.url)}:${caller.lineNumber + 1}`;
    callers.set(key, (callers.get(key) ?? 0) + us);
  }
  print(`callers of ${wanted} (its self time)`, callers, 15);
}
