/**
 * Runs Amender's golden tests (`amender-test.yaml`, see golden-format.ts): each case's resource goes
 * through the policies and its result must equal the expectation exactly.
 */
import { posix } from 'node:path';
import type { JsonObject, JsonValue } from '../json/index.js';
import { diffJson, formatDifferences } from './diff.js';
import { readDocument } from './documents.js';
import { readGoldenSuite, type Doc, type GoldenCase } from './golden-format.js';
import type { CliIO } from './io.js';
import { formatProblems, loadPolicies } from './load.js';
import { runResource } from './resource-review.js';

function relativeTo(base: string, path: string): string {
  return posix.isAbsolute(path) ? path : posix.normalize(posix.join(base, path));
}

async function loadDoc(d: Doc, base: string, io: CliIO): Promise<JsonObject> {
  return 'inline' in d ? d.inline : readDocument(relativeTo(base, d.file), io);
}

/** The failure lines of one case, or [] when it passed. */
async function runCase(c: GoldenCase, base: string, io: CliIO, loaded: Awaited<ReturnType<typeof loadPolicies>>): Promise<string[]> {
  const object = await loadDoc(c.resource, base, io);
  const oldObject = c.oldResource ? await loadDoc(c.oldResource, base, io) : undefined;
  const outcome = await runResource(loaded.set, {
    object,
    oldObject,
    operation: c.operation,
    namespace: c.namespace,
    username: c.user,
    groups: c.groups,
    documents: loaded.documents,
  });
  const expect = c.expect;
  if (expect.kind === 'denied') {
    if (outcome.allowed) {
      const change = outcome.patch.length > 0 ? ` with ${outcome.patch.length} patch operation(s)` : ' unchanged';
      return [`expected a denial, but the request was allowed${change}`];
    }
    const lines: string[] = [];
    const s = outcome.status;
    if (s.message !== expect.message) lines.push(`message: expected ${JSON.stringify(expect.message)}\n           got      ${JSON.stringify(s.message)}`);
    if (expect.code !== undefined && s.code !== expect.code) lines.push(`code: expected ${expect.code}, got ${s.code}`);
    if (expect.reason !== undefined && s.reason !== expect.reason) lines.push(`reason: expected ${JSON.stringify(expect.reason)}, got ${JSON.stringify(s.reason)}`);
    return lines;
  }
  if (!outcome.allowed) return [`expected the request to be allowed, but it was denied: ${outcome.status.message}`];
  if (expect.kind === 'unchanged') {
    if (outcome.patch.length === 0) return [];
    return [`expected no change, but the reply patches:`, ...outcome.patch.map((op) => `  ${JSON.stringify(op)}`)];
  }
  const expected: JsonValue = await loadDoc(expect.object, base, io);
  const diffs = diffJson(expected, outcome.object);
  return diffs.length === 0 ? [] : ['the mutated resource differs from the expected one:', formatDifferences(diffs)];
}

/**
 * Runs the golden test files, printing one line per case; the counts of passed and failed cases. `found`:
 * whether a file was found in a folder (read only when a regular file) rather than named.
 */
export async function runGoldenFiles(
  files: readonly string[],
  io: CliIO,
  out: (text: string) => void,
  found: (file: string) => boolean = () => false,
): Promise<{ passed: number; failed: number }> {
  let passed = 0;
  let failed = 0;
  for (const file of files) {
    const base = posix.dirname(file);
    let suite;
    let loaded;
    try {
      suite = readGoldenSuite(await readDocument(file, io, { found: found(file) }));
      loaded = await loadPolicies(suite.policies.map((p) => relativeTo(base, p)), io, { unknownVariables: 'keep' });
    } catch (err) {
      failed++;
      out(`FAIL ${file}: ${(err as Error).message}\n`);
      continue;
    }
    const ignored = loaded.set.problems.filter((p) => p.effect === 'ignored');
    if (ignored.length > 0) {
      failed += suite.cases.length;
      out(`FAIL ${file}: the policies have problems that leave documents out of the set:\n${formatProblems(loaded.set)}`);
      continue;
    }
    if (loaded.set.problems.length > 0) io.err(`warning: ${file}: policy problems:\n${formatProblems(loaded.set)}`);
    for (const c of suite.cases) {
      let lines: string[];
      try {
        lines = await runCase(c, base, io, loaded);
      } catch (err) {
        lines = [(err as Error).message];
      }
      if (lines.length === 0) {
        passed++;
        out(`ok   ${file}: ${c.name}\n`);
      } else {
        failed++;
        out(`FAIL ${file}: ${c.name}\n${lines.map((l) => `     ${l.replace(/\n/g, '\n     ')}`).join('\n')}\n`);
      }
    }
  }
  return { passed, failed };
}
