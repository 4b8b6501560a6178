/**
 * Real HTTP/1.x requests damaged on the wire, sent over raw sockets on loopback, and the answers read by
 * their framing, for the HTTP sweeps (fuzz-http.test.ts): the Node server and workerd alike.
 */
import { podReview } from '../../sources/helpers.js';
import { inParallel } from './in-parallel.js';
import { Prng } from './prng.js';
import { openRaw } from '../raw-http.js';

export const SECRET = 'feed'.repeat(12);
/** How long a half-closed connection may stay open: the server has all the bytes it will get. */
export const CLOSE_WITHIN_MS = 5_000;
/** Quiet periods before the client half-closes: after whole responses, and before any. */
const QUIET_MS = 30;
const WAIT_MS = 400;

export const REVIEW = JSON.stringify(podReview({ app: 'fuzz' }));

function request(method: string, path: string, headers: string[], body = ''): string {
  return `${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n${body}`;
}

function chunked(body: string): string {
  const pieces: string[] = [];
  for (let at = 0; at < body.length; at += 97) pieces.push(`${(Math.min(97, body.length - at)).toString(16)}\r\n${body.slice(at, at + 97)}\r\n`);
  return `${pieces.join('')}0\r\n\r\n`;
}

export const BASE_REQUESTS = [
  request('POST', '/mutate', ['Content-Type: application/json', `Content-Length: ${REVIEW.length}`, 'Connection: close'], REVIEW),
  request('POST', `/clusters/alpha/${SECRET}/mutate`, ['Content-Type: application/json', `Content-Length: ${REVIEW.length}`, 'Connection: close'], REVIEW),
  request('POST', '/mutate', ['Content-Type: application/json', 'Transfer-Encoding: chunked', 'Connection: close'], chunked(REVIEW)),
  request('POST', '/mutate?timeout=10s', ['Content-Type: application/json; charset=utf-8', `Content-Length: ${REVIEW.length}`], REVIEW) + request('GET', '/healthz', ['Connection: close']),
  request('GET', '/healthz', ['Connection: close']),
  request('GET', '/readyz', ['Accept: */*', 'Connection: close']),
  request('GET', '/metrics', ['Connection: close']),
  `POST /mutate HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: ${REVIEW.length}\r\n\r\n${REVIEW}`,
];

const ODD_VALUES = ['', ' ', '-1', '0', '+5', '1e3', '0x10', '99999999999999999999', '18446744073709551616', `${REVIEW.length + 1}`, `${REVIEW.length - 1}`, '5, 5', 'chunked', 'gzip, chunked', 'chunked, identity', '\u0000', 'a\rb', 'a\nb', 'x'.repeat(20_000), '\u00ff\u00fe', '%00', '__proto__', 'application/json', 'text/plain', 'close', 'keep-alive', 'upgrade'];
const HEADER_NAMES = ['Content-Length', 'Transfer-Encoding', 'Content-Type', 'Content-Encoding', 'Connection', 'Host', 'Expect', 'Upgrade', 'Authorization', '__proto__', 'X-Odd\u0000', 'Content-Length ', ' Content-Length', 'Transfer-Encoding\t'];
const INSERTS = ['\r\n', '\n', '\r', '\u0000', ' ', '\t', ':', '\r\n\r\n', '0\r\n\r\n', 'GET / HTTP/1.1\r\n', 'HTTP/2.0', '%', '..', '/../', '?', '#', '\u00ff', 'ff\r\n', '-1\r\n', '{', '"'];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH', 'CONNECT', 'TRACE', 'PRI', 'post', 'P\u0000ST', 'X'.repeat(300), ''];
const PATHS = ['/mutate', '/mutate/', '//mutate', '/MUTATE', '/healthz', '/readyz', '/metrics', '/', '*', 'http://localhost/mutate', '/clusters/alpha/x/mutate', `/clusters/beta/${SECRET}/mutate`, `/clusters/alpha/${SECRET}/`, '/%2e%2e/mutate', `/${'a'.repeat(70_000)}`, '/mutate?x=\u00ff', ''];
const VERSIONS = ['HTTP/1.1', 'HTTP/1.0', 'HTTP/0.9', 'HTTP/2.0', 'HTTP/1.2', 'http/1.1', 'HTTP/1.1 extra', ''];

/** `text` damaged in one to three places, each on the head (line by line) or on the raw bytes. */
export function damaged(rng: Prng, text: string): string {
  let t = text;
  for (let n = 1 + rng.int(3); n > 0; n--) {
    const headEnd = t.indexOf('\r\n\r\n');
    const lines = (headEnd < 0 ? t : t.slice(0, headEnd)).split('\r\n');
    const rest = headEnd < 0 ? '' : t.slice(headEnd);
    switch (rng.int(9)) {
      case 0: // a header line dropped or repeated
        if (lines.length > 1) {
          const i = 1 + rng.int(lines.length - 1);
          if (rng.chance(0.5)) lines.splice(i, 1);
          else lines.splice(i, 0, lines[i]);
        }
        t = lines.join('\r\n') + rest;
        break;
      case 1: // a header added or one's value made odd
        lines.splice(1 + rng.int(lines.length), 0, `${rng.pick(HEADER_NAMES)}: ${rng.pick(ODD_VALUES)}`);
        t = lines.join('\r\n') + rest;
        break;
      case 2: {
        // the request line changed
        const [method, path, version] = lines[0].split(' ');
        const part = rng.int(3);
        lines[0] = [part === 0 ? rng.pick(METHODS) : method, part === 1 ? rng.pick(PATHS) : path, part === 2 ? rng.pick(VERSIONS) : version].join(' ');
        t = lines.join('\r\n') + rest;
        break;
      }
      case 3: // cut short
        t = t.slice(0, rng.int(t.length));
        break;
      case 4: {
        // a piece repeated
        const at = rng.int(t.length);
        const piece = t.slice(at, at + 1 + rng.int(200));
        t = t.slice(0, at) + piece + piece + t.slice(at + piece.length);
        break;
      }
      case 5: {
        // bytes inserted
        const at = rng.int(t.length + 1);
        t = t.slice(0, at) + rng.pick(INSERTS) + t.slice(at);
        break;
      }
      case 6: {
        // characters cut out
        const at = rng.int(t.length);
        t = t.slice(0, at) + t.slice(at + 1 + rng.int(8));
        break;
      }
      case 7: // a chunk size or the content length rewritten
        t = t.replace(rng.chance(0.5) ? /\r\n([0-9a-f]+)\r\n/ : /Content-Length: (\d+)/, (m, n: string) => m.replace(n, rng.pick(['0', 'ffffffffffffffff', '-1', ' 5', `${Number.parseInt(n, 16) + 1}`, '1;ext=1', 'z'])));
        break;
      default: // line endings made bare
        t = t.replace(rng.chance(0.5) ? /\r\n/ : /\r\n/g, rng.pick(['\n', '\r', '\r\r\n']));
    }
  }
  return t;
}

export interface Exchange {
  statuses: number[];
  /** Each response's body (chunked ones as sent, with their framing). */
  bodies: string[];
  /** Why the reply is not what the server may send, if it is not. */
  malformed?: string;
  closedWithin: boolean;
}

/**
 * Sends `bytes` and reads until the server closes. A client that has nothing more to send half-closes,
 * which Node's server takes as the client leaving (it drops a request not yet answered), so the socket is
 * ended only once the server has been quiet: `QUIET_MS` after whole responses, `WAIT_MS` before any.
 */
export async function exchange(port: number, bytes: string, head: boolean): Promise<Exchange> {
  const conn = await openRaw(port);
  conn.socket.on('error', () => {}); // a reset by the server is an answer too
  conn.socket.write(Buffer.from(bytes, 'latin1'));
  await new Promise<void>((settle) => {
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(timer);
      const replies = readReplies(conn.received(), head);
      timer = setTimeout(done, replies.statuses.length > 0 && !replies.malformed ? QUIET_MS : WAIT_MS);
    };
    const done = () => {
      clearTimeout(timer);
      conn.socket.off('data', arm);
      settle();
    };
    conn.socket.on('data', arm);
    void conn.closed.then(done);
    arm();
  });
  conn.socket.end();
  let timer: NodeJS.Timeout | undefined;
  const closedWithin = await Promise.race([conn.closed.then(() => true), new Promise<boolean>((settle) => (timer = setTimeout(() => settle(false), CLOSE_WITHIN_MS)))]);
  clearTimeout(timer);
  conn.socket.destroy();
  return { ...readReplies(conn.received(), head), closedWithin };
}

/**
 * The responses in `data`, one after another, each head and body read by its framing; `headRequested`
 * when a request was HEAD, whose response has a Content-Length and no body.
 */
function readReplies(data: string, headRequested: boolean): Omit<Exchange, 'closedWithin'> {
  const statuses: number[] = [];
  const bodies: string[] = [];
  let rest = data;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) return { statuses, bodies, malformed: `an unfinished head: ${JSON.stringify(rest.slice(0, 200))}` };
    const responseHead = rest.slice(0, headEnd);
    const status = /^HTTP\/1\.1 (\d{3}) [^\r\n]*(\r\n[!#$%&'*+.^`|~\w-]+: [^\r\n]*)*$/.exec(responseHead);
    if (!status) return { statuses, bodies, malformed: `a head that is not HTTP/1.1: ${JSON.stringify(responseHead.slice(0, 300))}` };
    statuses.push(Number(status[1]));
    const length = /\r\ncontent-length: (\d+)/i.exec(responseHead);
    let bodyEnd: number;
    if (/\r\ntransfer-encoding: chunked/i.test(responseHead)) {
      const end = rest.indexOf('\r\n0\r\n\r\n', headEnd);
      if (end < 0) return { statuses, bodies, malformed: 'a chunked body without its last chunk' };
      bodyEnd = end + 7;
    } else if (length) {
      bodyEnd = headEnd + 4 + Number(length[1]);
      if (bodyEnd > rest.length && headRequested) bodyEnd = headEnd + 4;
      if (bodyEnd > rest.length) return { statuses, bodies, malformed: `a body shorter than its Content-Length (${length[1]})` };
    } else if (Number(status[1]) === 204 || Number(status[1]) === 304) bodyEnd = headEnd + 4;
    else bodyEnd = rest.length; // delimited by the close (Node's own 400 for a request it cannot parse)
    bodies.push(rest.slice(headEnd + 4, bodyEnd));
    rest = rest.slice(bodyEnd);
  }
  return { statuses, bodies };
}

/** Connections in flight at once. */
const CONCURRENCY = 16;

export interface SweepResult {
  counts: { ok: number; clientError: number; closedSilently: number; refusedByPlatform: number };
  /** The cases whose answer breaks the rules (at most five), each with its bytes. */
  broken: string[];
}

/**
 * `cases` damaged requests of `seed` against 127.0.0.1:`port`, CONCURRENCY at a time: every reply a
 * well-formed HTTP/1.1 response below 500, or a close, and the connection closed once the client is done.
 * `refusedByPlatform` tells a 5xx of the runtime in front of the app (counted apart) from one of the app.
 */
export async function sweepHttp(port: number, seed: number, cases: number, refusedByPlatform: (status: number, body: string) => boolean = () => false): Promise<SweepResult> {
  const rng = new Prng(seed);
  const requests = Array.from({ length: cases }, () => damaged(rng, rng.pick(BASE_REQUESTS)));
  const counts = { ok: 0, clientError: 0, closedSilently: 0, refusedByPlatform: 0 };
  const broken: string[] = [];
  await inParallel(requests, CONCURRENCY, async (bytes, i) => {
    const reply = await exchange(port, bytes, /(?:^|\n)HEAD /.test(bytes));
    const where = `seed ${seed} case ${i}: ${JSON.stringify(bytes.slice(0, 300))}${bytes.length > 300 ? `… (${bytes.length} bytes)` : ''}`;
    if (!reply.closedWithin) broken.push(`${where}\n  → the connection was still open ${CLOSE_WITHIN_MS} ms after the client had sent everything`);
    else if (reply.malformed) broken.push(`${where}\n  → ${reply.malformed}`);
    else if (reply.statuses.some((s, k) => s >= 500 && refusedByPlatform(s, reply.bodies[k]))) counts.refusedByPlatform++;
    else if (reply.statuses.some((s) => s >= 500)) broken.push(`${where}\n  → statuses ${reply.statuses.join(', ')}: ${JSON.stringify(reply.bodies.join(' | ').slice(0, 300))}`);
    else if (reply.statuses.length === 0) counts.closedSilently++;
    else if (reply.statuses.every((s) => s < 300)) counts.ok++;
    else counts.clientError++;
  }, () => broken.length >= 5);
  return { counts, broken };
}
