/**
 * AWS Lambda HTTP events of payload format 2.0 — a Function URL's, or an API Gateway HTTP API's with
 * the 2.0 integration — to a Web `Request`, and a `Response` back to the 2.0 result; payload 1.0 (a REST
 * API) and an Application Load Balancer's events are mapped to 2.0 first (normalizeHttpEvent), and the
 * result back to their format (resultInFormat). Pure Web APIs; the
 * request is a LambdaRequest and a LightResponse's text is taken as it is (src/adapters/web: no undici).
 *
 * Facts of the format this relies on: multi-value headers arrive joined with commas, cookies apart in
 * `cookies`; the body is a string, base64 when `isBase64Encoded`; `rawPath` is the path as sent, except
 * that an HTTP API stage other than `$default` prefixes it with `/<stage>` (stripped here, so routes
 * are the same behind any stage), and that a custom domain's API mapping (base path) prefixes it too, in
 * both formats, where the API's own endpoint does not (stripped when AMENDER_BASE_PATH names it);
 * `rawQueryString` is the query as sent.
 */
import { withoutPathPrefix } from './base-path.js';
import { LambdaRequest } from './lambda-request.js';
import { decodesToItself } from '../json/index.js';
import { LightHeaders, LightResponse } from './web/index.js';

export interface LambdaHttpEventV2 {
  version: string;
  routeKey?: string;
  rawPath: string;
  rawQueryString?: string;
  cookies?: string[];
  headers?: Record<string, string | undefined>;
  queryStringParameters?: Record<string, string | undefined>;
  requestContext: {
    domainName?: string;
    stage?: string;
    http: { method: string; path?: string; protocol?: string; sourceIp?: string };
    [key: string]: unknown;
  };
  body?: string;
  isBase64Encoded?: boolean;
  [key: string]: unknown;
}

export interface LambdaHttpResultV2 {
  statusCode: number;
  headers?: Record<string, string>;
  cookies?: string[];
  body?: string;
  isBase64Encoded: boolean;
}

export class LambdaEventError extends Error {
  override name = 'LambdaEventError';
}

/**
 * How the reply goes back: payload 2.0 (a Function URL, an HTTP API with 2.0), payload 1.0 (an API
 * Gateway REST API's proxy integration, an HTTP API with 1.0), or an Application Load Balancer's target
 * (with or without its multi-value headers: its reply must then carry `multiValueHeaders`).
 */
export type EventFormat = 'v2' | 'v1' | 'alb' | 'alb-multi';

/** The reply of payload 1.0 and of a load balancer (`statusDescription`: the load balancer's status line). */
export interface LambdaHttpResultV1 {
  statusCode: number;
  statusDescription?: string;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  body?: string;
  isBase64Encoded: boolean;
}

export type LambdaHttpResult = LambdaHttpResultV2 | LambdaHttpResultV1;

/** A list of strings per name, or undefined when `value` is not one (the event is then refused). */
function multiValues(value: unknown, what: string): Record<string, string[]> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new LambdaEventError(`the event's ${what} are not an object`);
  // Without a prototype, a name such as `__proto__` (a client may send such a header) is a name like any other.
  const out: Record<string, string[]> = Object.create(null);
  for (const [name, list] of Object.entries(value as Record<string, unknown>)) {
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) throw new LambdaEventError(`the event's ${what} are not lists of strings`);
    out[name] = list as string[];
  }
  return out;
}

function singleValues(value: unknown, what: string): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new LambdaEventError(`the event's ${what} are not an object`);
  const out: Record<string, string> = Object.create(null); // as in multiValues
  for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string') throw new LambdaEventError(`the event's ${what} are not strings`);
    out[name] = v;
  }
  return out;
}

/**
 * `event` as a payload 2.0 event, and the format its reply goes back in. Payload 1.0 (`httpMethod` and
 * `path`; a REST API's `path`, its event without `version`, has no stage; an HTTP API's with 1.0,
 * `version: "1.0"`, has it as 2.0's `rawPath` does) and a
 * load balancer's event (`requestContext.elb`) are mapped: headers from `multiValueHeaders` (joined with
 * commas, as HTTP joins repeated fields) or `headers`, the query from `multiValueQueryStringParameters` or
 * `queryStringParameters` (decoded by API Gateway, so encoded again; as sent by a load balancer). Anything
 * else is left as it is, for assertHttpEventV2 to refuse.
 */
export function normalizeHttpEvent(event: unknown): { event: unknown; format: EventFormat } {
  const e = event as Record<string, unknown> | null;
  if (typeof e !== 'object' || e === null || e.version === '2.0') return { event, format: 'v2' };
  if (typeof e.httpMethod !== 'string' || typeof e.path !== 'string' || (e.version !== undefined && e.version !== '1.0')) return { event, format: 'v2' };
  const context = (typeof e.requestContext === 'object' && e.requestContext !== null ? e.requestContext : {}) as Record<string, unknown>;
  const alb = typeof context.elb === 'object' && context.elb !== null;
  const multiHeaders = multiValues(e.multiValueHeaders, 'multiValueHeaders');
  const headers = multiHeaders
    ? Object.fromEntries(Object.entries(multiHeaders).map(([name, values]) => [name, values.join(', ')]))
    : singleValues(e.headers, 'headers');
  const multiQuery = multiValues(e.multiValueQueryStringParameters, 'multiValueQueryStringParameters');
  const query = multiQuery ?? Object.fromEntries(Object.entries(singleValues(e.queryStringParameters, 'queryStringParameters') ?? {}).map(([k, v]) => [k, [v]]));
  const encode = alb ? (text: string) => text : encodeURIComponent;
  const rawQueryString = Object.entries(query)
    .flatMap(([name, values]) => values.map((v) => `${encode(name)}=${encode(v)}`))
    .join('&');
  const converted: LambdaHttpEventV2 = {
    version: '2.0',
    rawPath: e.path,
    rawQueryString,
    ...(headers ? { headers } : {}),
    requestContext: {
      http: { method: e.httpMethod },
      // Only an HTTP API's 1.0 path holds a named stage; a REST API's (no `version`) never does, so its
      // stage is not taken off: a path whose first segment is named like the stage would lose it.
      ...(e.version === '1.0' && typeof context.stage === 'string' ? { stage: context.stage } : {}),
      ...(typeof context.domainName === 'string' ? { domainName: context.domainName } : {}),
    },
    ...(e.body !== undefined && e.body !== null ? { body: e.body as string } : {}),
    isBase64Encoded: e.isBase64Encoded === true,
  };
  return { event: converted, format: alb ? (multiHeaders ? 'alb-multi' : 'alb') : 'v1' };
}

const REASONS: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** A payload 2.0 result in the format its event came in. */
export function resultInFormat(result: LambdaHttpResultV2, format: EventFormat): LambdaHttpResult {
  if (format === 'v2') return result;
  const { cookies, headers = {}, ...rest } = result;
  const statusDescription = format === 'v1' ? {} : { statusDescription: `${result.statusCode} ${REASONS[result.statusCode] ?? ''}`.trimEnd() };
  if (format === 'alb-multi') {
    const multiValueHeaders = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]));
    if (cookies?.length) multiValueHeaders['set-cookie'] = cookies;
    return { ...rest, ...statusDescription, multiValueHeaders };
  }
  // Payload 1.0 takes both; a load balancer without multi-value headers, one Set-Cookie at most.
  const setCookie = cookies?.length ? (format === 'v1' ? { multiValueHeaders: { 'set-cookie': cookies } } : { headers: { ...headers, 'set-cookie': cookies[0] } }) : {};
  return { ...rest, ...statusDescription, headers, ...setCookie };
}

/** Throws LambdaEventError when `event` is not an HTTP event of payload format 2.0. */
export function assertHttpEventV2(event: unknown): asserts event is LambdaHttpEventV2 {
  const e = event as Partial<LambdaHttpEventV2> | null;
  if (typeof e !== 'object' || e === null) throw new LambdaEventError('the event is not an object');
  if (e.version !== '2.0') {
    throw new LambdaEventError(
      `expected an HTTP event (payload format 2.0: a Function URL or an HTTP API; payload format 1.0 with httpMethod and path: a REST API's proxy integration; an Application Load Balancer's), got version ${JSON.stringify(e.version)}`,
    );
  }
  if (typeof e.rawPath !== 'string' || typeof e.requestContext?.http?.method !== 'string') {
    throw new LambdaEventError('the event has no rawPath or requestContext.http.method');
  }
  // The URL is the host followed by rawPath: a rawPath that is not a path would become part of the host.
  if (e.rawPath !== '' && !e.rawPath.startsWith('/')) throw new LambdaEventError("the event's rawPath is not a path (it does not start with /)");
  // What AWS always sends: a body as a string, headers as an object, cookies as a list of strings.
  if (e.body !== undefined && e.body !== null && typeof e.body !== 'string') throw new LambdaEventError(`the event's body is not a string (${typeof e.body})`);
  if (e.headers !== undefined && e.headers !== null && (typeof e.headers !== 'object' || Array.isArray(e.headers))) throw new LambdaEventError("the event's headers are not an object");
  if (e.cookies !== undefined && e.cookies !== null && (!Array.isArray(e.cookies) || !e.cookies.every((c) => typeof c === 'string'))) {
    throw new LambdaEventError("the event's cookies are not a list of strings");
  }
}

/** The bytes of a base64 body; LambdaEventError when it is not base64 (atob's DOMException says less). */
export function decodeBase64(text: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    throw new LambdaEventError('the body is marked isBase64Encoded but is not valid base64');
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

/**
 * The path the client asked for: `rawPath` without a named HTTP API stage's `/<stage>` prefix, then
 * without `basePath` (a custom domain's mapping) when it starts with it. A path without the base path
 * (the API's own endpoint, a Function URL) is taken as it is: the same function answers on both.
 */
export function requestPath(event: LambdaHttpEventV2, basePath?: string): string {
  const stage = event.requestContext.stage;
  const path = withoutPathPrefix(event.rawPath || '/', stage && stage !== '$default' ? `/${stage}` : undefined);
  return withoutPathPrefix(path, basePath);
}

/** Characters that would end a URL's host and start its path, query or credentials. */
const NOT_IN_HOST = /[/\\@?#\s]/;

/**
 * The host of the request's URL: the Host header (AWS sets it to the domain the client asked), else the
 * domain of the event. A Host that would carry part of a path or credentials into the URL is refused, as
 * the Node server refuses it (400), instead of changing the path the routes see.
 */
function urlHost(header: string | null, domainName: string | undefined): string {
  if (header !== null && NOT_IN_HOST.test(header)) throw new LambdaEventError('the Host header is not a host name');
  return header || domainName || 'lambda.invalid';
}

/** Characters that a URL reads as the end of its path (`#`, `?`) or as a `/` (a backslash). */
const NOT_LITERAL_IN_PATH = /[#?\\]/g;

/**
 * The path as a URL's path. An HTTP API hands its events' paths over percent-decoded (2.0's `rawPath` and
 * 1.0's `path`: `/clusters/a/x%23y/mutate` arrives as `/clusters/a/x#y/mutate`), where a Function URL, a
 * REST API and a load balancer keep them as sent. Put in a URL as it is, a decoded `#` ended the path
 * there (the rest, and the query after it, read as a fragment) and a backslash became a `/`, so a path
 * secret holding one was routed nowhere (404). They are percent-encoded again, as the client sent them;
 * a path as sent holds no `#` or `?`, so it is taken as it is. (What an HTTP API loses in decoding, a
 * `%2F` become `/`, cannot be told apart here.)
 */
function pathInUrl(path: string): string {
  return path.replace(NOT_LITERAL_IN_PATH, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The event as a Request (a LambdaRequest); a TypeError for what a Web Request refuses. */
/** An HTTP method: a token (RFC 9110 §5.6.2). */
const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A character a header value cannot hold (a Web Headers value is bytes, one character each). */
const PAST_LATIN1 = /[^\u0000-\u00ff]/;

/** The UTF-8 bytes of `text`, one character each: what Node's server and workerd hand over for those bytes on the wire. */
function utf8BytesAsLatin1(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += String.fromCharCode(bytes[i]);
  return out;
}

/**
 * Sets a header field, or says which one is not a valid field (its name only: a value may be a credential).
 * AWS hands header bytes over decoded as UTF-8, so a value sent with non-ASCII bytes (a proxy's
 * `cf-ipcity: Srīperumbūdūr`) can hold characters past U+00FF, which Headers refuses: such a value is
 * set as its UTF-8 bytes, as the Node server and Workers see the same request, instead of refusing it.
 */
function setHeader(headers: LightHeaders, name: string, value: string): void {
  try {
    headers.set(name, value);
    return;
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
  }
  try {
    if (!PAST_LATIN1.test(value)) throw new TypeError('not a header field');
    headers.set(name, utf8BytesAsLatin1(value));
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    throw new LambdaEventError(`its header ${JSON.stringify(name.slice(0, 64))} is not a valid HTTP field (a control character or line break in its name or value?)`);
  }
}

/**
 * `basePath`: AMENDER_BASE_PATH, taken off the path when it starts with it (requestPath); `timeLeftMs`:
 * what the invocation leaves for the answer (LambdaRequest.timeLeftMs).
 */
export function eventToRequest(event: LambdaHttpEventV2, basePath?: string, timeLeftMs?: () => number): Request {
  const headers = new LightHeaders();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) setHeader(headers, name, value);
  }
  if (event.cookies?.length) setHeader(headers, 'cookie', event.cookies.join('; '));
  const host = urlHost(headers.get('host'), event.requestContext.domainName);
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  const url = `https://${host}${pathInUrl(requestPath(event, basePath))}${query}`;
  if (!METHOD_TOKEN.test(event.requestContext.http.method)) throw new LambdaEventError('requestContext.http.method is not an HTTP method');
  const method = event.requestContext.http.method.toUpperCase();
  const hasBody = event.body !== undefined && event.body !== null && method !== 'GET' && method !== 'HEAD';
  const body = hasBody ? (event.isBase64Encoded ? decodeBase64(event.body!) : event.body!) : undefined;
  return new LambdaRequest(url, { method, headers, ...(body !== undefined ? { body } : {}), ...(timeLeftMs ? { timeLeftMs } : {}) }) as unknown as Request;
}

/** Media types whose bodies are text: sent as they are; anything else is sent base64. */
function isTextual(contentType: string | null): boolean {
  if (!contentType) return true; // our bodies without a type are empty or plain text
  const type = contentType.split(';')[0].trim().toLowerCase();
  return type.startsWith('text/') || type === 'application/json' || type.endsWith('+json') || type === 'application/xml' || type.endsWith('+xml') || type === 'application/javascript';
}

export async function responseToResult(response: Response): Promise<LambdaHttpResultV2> {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') return;
    headers[name] = value;
  });
  const setCookies = (response.headers as Headers & { getSetCookie?: () => string[] }).getSetCookie?.() ?? [];
  cookies.push(...setCookies);
  const sendsText = !response.headers.has('content-encoding') && isTextual(response.headers.get('content-type'));
  const body = await resultBody(response, sendsText);
  return { statusCode: response.status, headers, ...(cookies.length > 0 ? { cookies } : {}), ...body };
}

/** The body as text when it is text that is UTF-8, else base64 of its bytes. */
async function resultBody(response: Response, sendsText: boolean): Promise<{ body: string; isBase64Encoded: boolean }> {
  // A LightResponse's text is sent as it is when decoding its UTF-8 would give it back.
  const given = LightResponse.takeText(response);
  if (given !== undefined && sendsText && decodesToItself(given)) return { body: given, isBase64Encoded: false };
  const bytes = given !== undefined ? new TextEncoder().encode(given) : new Uint8Array(await response.arrayBuffer());
  if (sendsText) {
    try {
      return { body: new TextDecoder('utf-8', { fatal: true }).decode(bytes), isBase64Encoded: false };
    } catch {
      // not UTF-8 after all: send the bytes as they are
    }
  }
  return { body: encodeBase64(bytes), isBase64Encoded: true };
}
