// A stand-in for the Lambda runtime: imports the built handler module in a fresh process (its init phase,
// with the environment it was started with) and invokes `handler` once per JSON line on stdin, the way the
// runtime does: one invocation at a time, with a context whose getRemainingTimeInMillis counts down.
// Results go to fd 3 as JSON lines ({ id, result } | { id, error }), so the function's own logs keep stdout.
// `node lambda-harness.mjs BUNDLE`; on a failed init it writes { initError } and exits 0. The ready line
// carries what the bundle says of its code cache (its `codeCache` export).
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const results = createWriteStream(null, { fd: 3 });
const send = (value) => results.write(JSON.stringify(value) + '\n');

let handler;
let codeCache;
try {
  ({ handler, codeCache } = await import(pathToFileURL(process.argv[2]).href));
} catch (err) {
  send({ initError: String(err?.message ?? err) });
  results.end(() => process.exit(0));
}
if (handler) {
  send({ ready: true, codeCache });
  for await (const line of createInterface({ input: process.stdin })) {
    const { id, event, timeoutMs } = JSON.parse(line);
    const deadline = Date.now() + timeoutMs;
    try {
      const result = await handler(event, { awsRequestId: id, getRemainingTimeInMillis: () => deadline - Date.now() });
      send({ id, result });
    } catch (err) {
      send({ id, error: String(err?.stack ?? err) });
    }
  }
  results.end(() => process.exit(0));
}
