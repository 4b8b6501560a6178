/**
 * `amender apply --output PATH` (`kyverno apply -o`, commands/apply/log.go and processor/policy_processor.go):
 * the mutated resources written to a file when PATH ends in `.yaml`/`.yml` (its folders made), else into
 * the folder PATH (made), each resource in `<metadata.name>-mutated.yaml`, resources of one name in one
 * file, in order, as Kyverno appends them. The YAML is what standard output would show.
 */
import { posix } from 'node:path';
import { isJsonObject, type JsonValue } from '../json/index.js';
import { CliInputError, describeFsError } from './errors.js';
import type { CliIO } from './io.js';
import { yamlOutput } from './output.js';

/** The file name of a resource: its name, where a name the API server would refuse (`../x`) cannot leave the folder. */
function fileNameOf(object: JsonValue): string {
  const metadata = isJsonObject(object) ? object.metadata : undefined;
  const name = isJsonObject(metadata) ? metadata.name : undefined;
  const safe = typeof name === 'string' ? name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, (dots) => '_'.repeat(dots.length)) : '';
  return `${safe === '' ? 'unnamed' : safe}-mutated.yaml`;
}

async function attempt(path: string, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    throw new CliInputError(`--output: cannot write ${describeFsError(path, err)}`, { cause: err });
  }
}

export async function writeMutated(path: string, objects: readonly JsonValue[], io: CliIO): Promise<void> {
  if (!io.writeFile || !io.makeDir) throw new CliInputError('--output: cannot write files here');
  const { makeDir, writeFile } = io;
  const text = (list: readonly JsonValue[]) => list.map((o) => yamlOutput(o)).join('---\n');
  if (/\.ya?ml$/.test(path)) {
    await attempt(path, async () => {
      await makeDir(posix.dirname(path));
      await writeFile(path, text(objects));
    });
    return;
  }
  await attempt(path, () => makeDir(path));
  const byFile = new Map<string, JsonValue[]>();
  for (const o of objects) {
    const file = posix.join(path, fileNameOf(o));
    byFile.set(file, [...(byFile.get(file) ?? []), o]);
  }
  for (const [file, list] of byFile) await attempt(file, () => writeFile(file, text(list)));
}
