/** A Worker that evaluates JMESPath expressions posted to it, for workerd.test.ts. */
import { evaluate } from '../../../src/kyverno/jmespath/index.js';
import type { JsonValue } from '../../../src/json/index.js';

export default {
  async fetch(request: Request): Promise<Response> {
    const { cases } = (await request.json()) as { cases: { expr: string; data: JsonValue }[] };
    const results = cases.map(({ expr, data }) => {
      const r = evaluate(expr, data, { now: () => Date.UTC(2024, 0, 1), random: () => 0.25 });
      return r.ok ? { value: r.value } : { error: r.error.message, kind: r.error.kind };
    });
    return Response.json({ results });
  },
};
