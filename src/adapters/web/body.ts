/**
 * The body of a LambdaRequest or LightResponse: text or bytes given whole, read at most once like a Web
 * body, and the body members the two share (WebBody).
 */
import { decodesToItself } from '../../json/index.js';
import { nodeClass } from './headers.js';

export type BodySource = string | Uint8Array | null;

/** The Content-Type a text body gets, as Node's Request and Response give it. */
export const TEXT_CONTENT_TYPE = 'text/plain;charset=UTF-8';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The TypeError of a body read a second time. */
export function unusable(): TypeError {
  return new TypeError('Body is unusable: Body has already been read');
}

/**
 * A body's bytes as an ArrayBuffer of their own: a view over part of a buffer (a base64 decoding, an
 * encoder's output) is copied.
 */
export function ownArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes.buffer as ArrayBuffer;
  return bytes.slice().buffer as ArrayBuffer;
}

/** A body's bytes as a Blob typed by its Content-Type. */
export function blobOf(bytes: Uint8Array, contentType: string | null): Blob {
  return new Blob([bytes], { type: contentType ?? '' });
}

/** A body's bytes parsed as FormData, by Node's Response (FormData parsing is undici's). */
export function formDataOf(bytes: Uint8Array, contentType: string | null): Promise<FormData> {
  return new (nodeClass('Response'))(bytes, contentType === null ? {} : { headers: { 'content-type': contentType } }).formData();
}

/**
 * A body given whole (text or bytes), read at most once like a Web body; its `ReadableStream` is made
 * only when asked for (Node's stream classes are not undici, but cost something to load).
 */
export class WholeBody {
  #source: BodySource;
  #stream: ReadableStream<Uint8Array> | undefined;
  #used = false;

  constructor(source: BodySource) {
    this.#source = source;
  }

  get used(): boolean {
    return this.#used;
  }

  /** The stream of the body (null for none); reading or cancelling it uses the body. */
  stream(): ReadableStream<Uint8Array> | null {
    if (this.#source === null) return null;
    if (this.#stream === undefined) {
      const source = this.#source;
      // A high-water mark of 0: nothing is pulled (and the body stays unused) until someone reads.
      this.#stream = new ReadableStream<Uint8Array>(
        {
          pull: (controller) => {
            this.#used = true;
            const bytes = typeof source === 'string' ? encoder.encode(source) : source;
            if (bytes.byteLength > 0) controller.enqueue(bytes);
            controller.close();
          },
          cancel: () => {
            this.#used = true;
          },
        },
        { highWaterMark: 0 },
      );
      if (this.#used) this.#stream.getReader(); // read already (by text()...): locked, as a Web body's is
    }
    return this.#stream;
  }

  /** Marks the body read: its stream, if one was made, is locked as a Web body's is then. */
  #markUsed(): void {
    this.#used = true;
    this.#stream?.getReader();
  }

  #usable(): boolean {
    return !this.#used && !(this.#stream?.locked ?? false);
  }

  /** The text or bytes, marking the body used; throws TypeError when it was read already. */
  take(): string | Uint8Array {
    if (this.#source === null) return new Uint8Array(0); // a null body is never "used"
    if (!this.#usable()) throw unusable();
    this.#markUsed();
    return this.#source;
  }

  /** The text when the body is text not read yet; undefined otherwise (nothing is marked then). */
  takeText(): string | undefined {
    if (typeof this.#source !== 'string' || !this.#usable()) return undefined;
    this.#markUsed();
    return this.#source;
  }

  /** A copy for `clone()`: the source is never changed, so the copy shares it. */
  copy(): WholeBody {
    if (this.#source !== null && !this.#usable()) throw new TypeError('Body has already been consumed.');
    return new WholeBody(this.#source);
  }

  async bytes(): Promise<Uint8Array> {
    const taken = this.take();
    return typeof taken === 'string' ? encoder.encode(taken) : taken;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return ownArrayBuffer(await this.bytes());
  }

  async text(): Promise<string> {
    const taken = this.take();
    // What a Web body's text() gives: its UTF-8 decoded, lone surrogates replaced and a BOM dropped.
    if (typeof taken === 'string' && decodesToItself(taken)) return taken;
    return decoder.decode(typeof taken === 'string' ? encoder.encode(taken) : taken);
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async blob(type: string | null): Promise<Blob> {
    return blobOf(await this.bytes(), type);
  }

  async formData(contentType: string | null): Promise<FormData> {
    return formDataOf(await this.bytes(), contentType);
  }
}

/**
 * The members a Web Request and Response share (the Fetch standard's Body mixin), over one WholeBody:
 * LambdaRequest and LightResponse extend it.
 */
export abstract class WebBody {
  #whole: WholeBody;
  abstract readonly headers: { get(name: string): string | null };

  protected constructor(source: BodySource) {
    this.#whole = new WholeBody(source);
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.#whole.stream();
  }

  get bodyUsed(): boolean {
    return this.#whole.used;
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#whole.arrayBuffer();
  }

  bytes(): Promise<Uint8Array> {
    return this.#whole.bytes();
  }

  text(): Promise<string> {
    return this.#whole.text();
  }

  json(): Promise<unknown> {
    return this.#whole.json();
  }

  blob(): Promise<Blob> {
    return this.#whole.blob(this.headers.get('content-type'));
  }

  formData(): Promise<FormData> {
    return this.#whole.formData(this.headers.get('content-type'));
  }

  /** `make()` (a copy without a body) given a copy of this body, as `clone()` does; throws when read already. */
  protected withBodyCopy<T extends WebBody>(make: () => T): T {
    const body = this.#whole.copy();
    const copy = make();
    copy.#whole = body;
    return copy;
  }

  /** See WholeBody.takeText. */
  protected static takeTextOf(value: WebBody): string | undefined {
    return value.#whole.takeText();
  }
}
