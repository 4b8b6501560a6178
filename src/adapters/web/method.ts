/** The methods a Web Request writes in upper case whatever case it was given (the Fetch standard's "normalize"). */
const NORMALIZED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

/** `method` as a Web Request holds it: one of the six above in upper case, any other as given. */
export function normalizeMethod(method: string): string {
  const upper = method.toUpperCase();
  return NORMALIZED_METHODS.has(upper) ? upper : method;
}
