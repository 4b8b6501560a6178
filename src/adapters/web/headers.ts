/**
 * Web `Headers` without Node's undici (index.ts says why): the checks, the combining of values and the
 * iteration order of Node's Headers.
 */

/** Node's class of `kind`, looked up only when needed: the lookup is what loads undici. */
export function nodeClass<K extends 'Headers' | 'Request' | 'Response'>(kind: K): (typeof globalThis)[K] {
  return globalThis[kind];
}

/** True for an object of Node's own `kind` class; looks the class up only for an object tagged so. */
export function isNodeInstance(value: unknown, kind: 'Headers' | 'Request' | 'Response'): boolean {
  if (typeof value !== 'object' || value === null || Object.prototype.toString.call(value) !== `[object ${kind}]`) return false;
  return value instanceof (nodeClass(kind) as unknown as new () => object);
}

/** RFC 9110 token: what a header name and a method may be made of. */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Characters a header value may not hold once trimmed; beyond U+00FF it is not a ByteString. */
const NOT_IN_VALUE = /[\0\r\n\u0100-\uffff]/;

function isHttpWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function headerName(name: unknown, operation: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`${operation}: "${text}" is an invalid header name.`);
  return text.toLowerCase();
}

function headerValue(value: unknown, operation: string): string {
  const text = String(value);
  let start = 0;
  let end = text.length;
  while (start < end && isHttpWhitespace(text.charCodeAt(start))) start++;
  while (end > start && isHttpWhitespace(text.charCodeAt(end - 1))) end--;
  const trimmed = start === 0 && end === text.length ? text : text.slice(start, end);
  if (NOT_IN_VALUE.test(trimmed)) throw new TypeError(`${operation}: "${trimmed}" is an invalid header value.`);
  return trimmed;
}

export type HeadersInitLike = Iterable<Iterable<unknown>> | Record<string, unknown> | null | undefined;

export class LightHeaders {
  /** Lower-cased name → value (several values joined with ", "), Set-Cookie apart. */
  #fields = new Map<string, string>();
  #cookies: string[] = [];

  constructor(init?: HeadersInitLike) {
    if (init === undefined || init === null) return;
    if (typeof init !== 'object' && typeof init !== 'function') {
      throw new TypeError("Headers constructor: Expected init to be an iterable of pairs or a record");
    }
    if (#fields in init) {
      this.#fields = new Map(init.#fields);
      this.#cookies = [...init.#cookies];
    } else if (Symbol.iterator in init) {
      for (const pair of init as Iterable<Iterable<unknown>>) {
        const items = Array.isArray(pair) ? pair : Array.from(pair);
        if (items.length !== 2) throw new TypeError(`Headers constructor: expected name/value pair to be length 2, found ${items.length}.`);
        this.#append(items[0], items[1], 'Headers.append');
      }
    } else {
      for (const name of Object.keys(init)) this.#append(name, (init as Record<string, unknown>)[name], 'Headers.append');
    }
  }

  #append(name: unknown, value: unknown, operation: string): void {
    const key = headerName(name, operation);
    const text = headerValue(value, operation);
    if (key === 'set-cookie') this.#cookies.push(text);
    else {
      const previous = this.#fields.get(key);
      this.#fields.set(key, previous === undefined ? text : `${previous}, ${text}`);
    }
  }

  append(name: string, value: string): void {
    this.#append(name, value, 'Headers.append');
  }

  set(name: string, value: string): void {
    const key = headerName(name, 'Headers.set');
    const text = headerValue(value, 'Headers.set');
    if (key === 'set-cookie') this.#cookies = [text];
    else this.#fields.set(key, text);
  }

  get(name: string): string | null {
    const key = headerName(name, 'Headers.get');
    if (key === 'set-cookie') return this.#cookies.length > 0 ? this.#cookies.join(', ') : null;
    return this.#fields.get(key) ?? null;
  }

  has(name: string): boolean {
    const key = headerName(name, 'Headers.has');
    return key === 'set-cookie' ? this.#cookies.length > 0 : this.#fields.has(key);
  }

  delete(name: string): void {
    const key = headerName(name, 'Headers.delete');
    if (key === 'set-cookie') this.#cookies = [];
    else this.#fields.delete(key);
  }

  getSetCookie(): string[] {
    return [...this.#cookies];
  }

  /** The fields as Node's Headers iterates them: sorted by name, each Set-Cookie apart. */
  #sorted(): [string, string][] {
    const names = [...this.#fields.keys()];
    if (this.#cookies.length > 0) names.push('set-cookie');
    names.sort();
    const entries: [string, string][] = [];
    for (const name of names) {
      if (name === 'set-cookie') for (const cookie of this.#cookies) entries.push([name, cookie]);
      else entries.push([name, this.#fields.get(name)!]);
    }
    return entries;
  }

  forEach(callback: (value: string, name: string, headers: LightHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this.#sorted()) callback.call(thisArg, value, name, this);
  }

  entries(): IterableIterator<[string, string]> {
    return this.#sorted()[Symbol.iterator]();
  }

  keys(): IterableIterator<string> {
    return this.#sorted().map(([name]) => name)[Symbol.iterator]();
  }

  values(): IterableIterator<string> {
    return this.#sorted().map(([, value]) => value)[Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return (typeof value === 'object' && value !== null && #fields in value) || isNodeInstance(value, 'Headers');
  }
}

