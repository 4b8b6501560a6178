/**
 * AWS Lambda HTTP events of payload format 2.0 — a Function URL's, or an API Gateway HTTP API's with
 * the 2.0 integration — to a Web `Request`, and a `Response` back to the 2.0 result. Pure Web APIs; the
 * request is a LambdaRequest and a LightResponse's text is taken as it is (src/adapters/web: no undici).
 *
 * Facts of the format this relies on: multi-value headers arrive joined with commas, cookies apart in
 * `cookies`; the body is a string, base64 when `isBase64Encoded`; `rawPath` is the path as sent, except
 * that an HTTP API stage other than `$default` prefixes it with `/<stage>` (stripped here, so routes
 * are the same behind any stage); `rawQueryString` is the query as sent.
 */
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

/** Throws LambdaEventError when `event` is not an HTTP event of payload format 2.0. */
export function assertHttpEventV2(event: unknown): asserts event is LambdaHttpEventV2 {
  const e = event as Partial<LambdaHttpEventV2> | null;
  if (typeof e !== 'object' || e === null) throw new LambdaEventError('the event is not an object');
  if (e.version !== '2.0') {
    throw new LambdaEventError(
      `expected an HTTP event of payload format 2.0 (a Function URL, or an HTTP API integration with payloadFormatVersion 2.0), got version ${JSON.stringify(e.version)}`,
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

/** The path the client asked for: `rawPath` without a named HTTP API stage's `/<stage>` prefix. */
export function requestPath(event: LambdaHttpEventV2): string {
  const stage = event.requestContext.stage;
  const path = event.rawPath || '/';
  if (stage && stage !== '$default') {
    const prefix = `/${stage}`;
    if (path === prefix) return '/';
    if (path.startsWith(`${prefix}/`)) return path.slice(prefix.length);
  }
  return path;
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

/** The event as a Request (a LambdaRequest); a TypeError for what a Web Request refuses. */
/** An HTTP method: a token (RFC 9110 §5.6.2). */
const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Sets a header field, or says which one is not a valid field (its name only: a value may be a credential). */
function setHeader(headers: LightHeaders, name: string, value: string): void {
  try {
    headers.set(name, value);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    throw new LambdaEventError(`its header ${JSON.stringify(name.slice(0, 64))} is not a valid HTTP field (a control character or line break in its name or value?)`);
  }
}

export function eventToRequest(event: LambdaHttpEventV2): Request {
  const headers = new LightHeaders();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) setHeader(headers, name, value);
  }
  if (event.cookies?.length) setHeader(headers, 'cookie', event.cookies.join('; '));
  const host = urlHost(headers.get('host'), event.requestContext.domainName);
  const query = event.rawQueryString ? `?${event.rawQueryString}` : '';
  const url = `https://${host}${requestPath(event)}${query}`;
  if (!METHOD_TOKEN.test(event.requestContext.http.method)) throw new LambdaEventError('requestContext.http.method is not an HTTP method');
  const method = event.requestContext.http.method.toUpperCase();
  const hasBody = event.body !== undefined && event.body !== null && method !== 'GET' && method !== 'HEAD';
  const body = hasBody ? (event.isBase64Encoded ? decodeBase64(event.body!) : event.body!) : undefined;
  return new LambdaRequest(url, { method, headers, ...(body !== undefined ? { body } : {}) }) as unknown as Request;
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
