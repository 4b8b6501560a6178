/** Placeholder until src/cel exposes its API (replaced by the bridge to src/cel). */
export const PENDING_CEL = 'CEL environment not available yet';
