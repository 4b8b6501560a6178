/**
 * Members of the light Web classes that nothing in the app reads: each is answered by Node's own object,
 * built on first use (which loads undici then, and only then).
 */

/** Getters on `prototype` for members nothing here reads: each is answered by Node's own object (`toNode`). */
export function delegateToNode<T>(prototype: T, names: readonly string[], toNode: (self: T) => object): void {
  for (const name of names) {
    Object.defineProperty(prototype, name, {
      configurable: true,
      get(this: T) {
        return (toNode(this) as Record<string, unknown>)[name];
      },
    });
  }
}

/** The members of a Request that the app and Hono never read: light requests ask Node's own for them. */
export const REQUEST_MEMBERS_OF_NODE = ['cache', 'credentials', 'destination', 'integrity', 'keepalive', 'mode', 'redirect', 'referrer', 'referrerPolicy', 'duplex'] as const;
