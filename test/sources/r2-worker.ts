/**
 * A test Worker (bundled by r2.test.ts with esbuild, run in workerd by miniflare): drives the R2 source
 * and a refresher through the real `env.POLICIES` R2 binding, counting the binding calls it makes.
 */
import { r2Source, type R2BucketLike } from '../../src/sources/r2.js';
import { PolicySetRefresher } from '../../src/sources/refresher.js';
import type { PolicySource } from '../../src/sources/types.js';

const calls: string[] = [];
let refresher: PolicySetRefresher | undefined;
/** Faults the binding is given for a request (`/faults`): keys whose get() returns null, or throws this error. */
const phantom = new Set<string>();
const throwing = new Map<string, string>();
/** `/faults`' refreshers, one per prefix, kept from one request to the next. */
const faultRefreshers = new Map<string, PolicySetRefresher>();

function counted(bucket: R2BucketLike): R2BucketLike {
  return {
    list: (options) => {
      calls.push('list');
      return bucket.list(options);
    },
    get: async (key, options) => {
      const fault = throwing.get(key);
      if (fault !== undefined) {
        calls.push(`get ${key} threw`);
        throw new Error(fault);
      }
      const object = phantom.has(key) ? null : await bucket.get(key, options);
      calls.push(`get ${key} ${options?.onlyIf ? 'conditional' : 'plain'} ${object === null ? 'null' : typeof object.text === 'function' ? 'body' : 'no-body'}`);
      return object;
    },
  };
}

function sourceFor(env: Record<string, unknown>, prefix: string): PolicySource {
  return r2Source({ uri: `r2://POLICIES/${prefix}`, bucket: counted(env.POLICIES as R2BucketLike), prefix });
}

const signal = () => new AbortController().signal;

export default {
  async fetch(request: Request, env: Record<string, unknown>): Promise<Response> {
    const url = new URL(request.url);
    const q = (name: string) => url.searchParams.get(name) ?? '';
    calls.length = 0;
    try {
      switch (url.pathname) {
        case '/list': {
          const entries = await sourceFor(env, q('prefix')).list({ signal: signal(), maxEntries: Number(q('max') || 1000) });
          return Response.json({ entries, calls });
        }
        case '/fetch': {
          const source = sourceFor(env, q('prefix'));
          const ifNoneMatch = url.searchParams.get('ifNoneMatch') ?? undefined;
          const result = await source.fetch({ name: q('key'), label: q('key') }, { signal: signal(), maxBytes: 1 << 20, ...(ifNoneMatch ? { ifNoneMatch } : {}) });
          return Response.json({ result, calls });
        }
        case '/refresh': {
          refresher ??= new PolicySetRefresher({ name: 'workers', sources: [sourceFor(env, q('prefix'))], intervalMs: 0 });
          const result = await refresher.refresh();
          const state = refresher.provider();
          return Response.json({
            result,
            calls,
            policies: state.set?.mutatingPolicies.map((p) => p.policy.name) ?? [],
            problems: state.set?.problems ?? [],
            sourceErrors: state.sourceErrors,
          });
        }
        case '/faults': {
          // The refresher of this prefix (made at its first request), its binding given the faults named:
          // phantom=KEY (get() null while the key is listed), throws=KEY:MESSAGE (get() throws).
          phantom.clear();
          throwing.clear();
          for (const key of url.searchParams.getAll('phantom')) phantom.add(key);
          for (const fault of url.searchParams.getAll('throws')) throwing.set(fault.slice(0, fault.indexOf(':')), fault.slice(fault.indexOf(':') + 1));
          let r = faultRefreshers.get(q('prefix'));
          if (!r) faultRefreshers.set(q('prefix'), (r = new PolicySetRefresher({ name: 'workers', sources: [sourceFor(env, q('prefix'))], intervalMs: 0 })));
          const result = await r.refresh();
          const state = r.provider();
          return Response.json({
            result,
            calls,
            policies: state.set?.mutatingPolicies.map((p) => p.policy.name) ?? [],
            problems: state.set?.problems ?? [],
            sourceErrors: state.sourceErrors,
          });
        }
        case '/load': {
          // A refresher of its own for one prefix: the set its first refresh loads.
          const fresh = new PolicySetRefresher({ name: 'workers', sources: [sourceFor(env, q('prefix'))], intervalMs: 0 });
          const result = await fresh.refresh();
          const state = fresh.provider();
          return Response.json({
            result,
            calls,
            policies: state.set?.mutatingPolicies.map((p) => p.policy.name) ?? [],
            mutations: state.set?.mutatingPolicies.map((p) => JSON.stringify(p.policy.mutations)) ?? [],
            problems: state.set?.problems ?? [],
            sourceErrors: state.sourceErrors,
          });
        }
        default:
          return new Response('not found', { status: 404 });
      }
    } catch (err) {
      return Response.json({ error: String((err as Error)?.message ?? err) }, { status: 500 });
    }
  },
};
