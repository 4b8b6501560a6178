/** Reads one JSON or YAML document (a review, a resource) given on the command line. */
import { isJsonObject, JsonParseError, parseJson, type JsonObject } from '../json/index.js';
import { parseDocuments } from '../policyset/index.js';
import { CliInputError, describeFsError } from './errors.js';
import type { CliIO } from './io.js';

/** `-` is standard input. `found`: a path found in a folder; `body`: read as a request body (see CliIO.readFile). */
export async function readInput(path: string, io: CliIO, options: { found?: boolean; body?: boolean } = {}): Promise<string> {
  const body = options.body ? { body: true } : undefined;
  if (path === '-') {
    try {
      return await io.readStdin(body);
    } catch (err) {
      throw new CliInputError(`cannot read standard input: ${(err as Error).message}`, { cause: err });
    }
  }
  try {
    return await io.readFile(path, options.found || body ? { ...(options.found ? { found: true } : {}), ...body } : undefined);
  } catch (err) {
    throw new CliInputError(`cannot read ${describeFsError(path, err)}`, { cause: err });
  }
}

/** Exactly one object, from JSON (exact numbers, depth-limited) or YAML. */
export function parseSingleDocument(text: string, source: string): JsonObject {
  if (/^\s*[{[]/.test(text)) {
    let value;
    try {
      value = parseJson(text);
    } catch (err) {
      if (err instanceof JsonParseError) throw new CliInputError(`${source}: malformed JSON: ${err.message}`);
      throw err;
    }
    if (!isJsonObject(value)) throw new CliInputError(`${source}: expected one JSON object`);
    // Read on as every document is (a List kind gives its items, none when they are null): one object.
  }
  const parsed = parseDocuments(source, text);
  if (parsed.problems.length > 0) throw new CliInputError(`${source}: ${parsed.problems[0].message}`);
  if (parsed.documents.some((d) => d.item !== undefined)) throw new CliInputError(`${source}: expected one object, found a List of ${parsed.documents.length}`);
  if (parsed.documents.length !== 1) throw new CliInputError(`${source}: expected exactly one document, found ${parsed.documents.length}`);
  return parsed.documents[0].value;
}

export async function readDocument(path: string, io: CliIO, options: { found?: boolean } = {}): Promise<JsonObject> {
  return parseSingleDocument(await readInput(path, io, options), path === '-' ? 'standard input' : path);
}
