/**
 * Web `Headers` and `Response`, and the body a light `Request` shares with them, that do not load Node's
 * fetch implementation. Node defines its own classes in undici, and the first use of any of them loads
 * undici with crypto, tls and http2: ~45–60 ms of a cold start (bench/JOURNAL.md).
 *
 * The Lambda engine's and the Node server's scripts are built with their free names `Headers` and
 * `Response`, Hono's included, bound to LightHeaders and LightResponse (esbuild `inject` of globals.ts,
 * scripts/build.mjs), and their adapters hand the app a light request (../lambda-request.ts,
 * ../node-request.ts): a review is answered without undici. The process's globals are left alone;
 * Workers do not use this.
 *
 * What the app and Hono use is implemented here, with the checks and defaults of Node's classes (invalid
 * names, values, methods, URLs and statuses throw the same errors; a text body gets the same
 * Content-Type). A member that is not (a Request's `cache`, `mode`..., a Response's `type`...) builds
 * Node's own object from the same state and asks it, as does a Response of a body kind not handled here
 * (a Blob, FormData, a stream): that one is Node's own from the start. `instanceof` holds for both kinds.
 */
export { blobOf, formDataOf, ownArrayBuffer, unusable, WebBody, type BodySource } from './body.js';
export { delegateToNode, REQUEST_MEMBERS_OF_NODE } from './delegate.js';
export { isNodeInstance, LightHeaders, nodeClass, TOKEN, type HeadersInitLike } from './headers.js';
export { normalizeMethod } from './method.js';
export { LightResponse } from './response.js';
