/**
 * Equality of the authorization library's values, as kube-apiserver answers it: every one embeds
 * receiverOnlyObjectVal, whose Equal refuses anything but a bare receiverOnlyObjectVal (no CEL value is
 * one) with MaybeNoSuchOverloadErr (apiserver pkg/cel/library/authz.go). So `==` fails, `!=` is true
 * (cel-go evalNe: Equal != True) and `in` finds nothing (baseList.Contains keeps only a True).
 * An awaited check() is still found again when the expression is re-evaluated with new values.
 */
import { describe, expect, it } from 'vitest';
import { Evaluation, RUNTIME_CEL_COST_BUDGET, compileExpression, type Authorizer } from '../../../src/cel/index.js';

const request = {
  userInfo: { username: 'alice', groups: ['dev'] },
  resource: { group: '', version: 'v1', resource: 'pods' },
  namespace: 'ns',
  name: 'p',
};

function evaluation(expr: string, authorizer: Authorizer) {
  const c = compileExpression(expr, 'variable', { params: false });
  if (!c.ok) throw new Error(c.message);
  return { compiled: c.compiled, ev: new Evaluation({ request, authorizer }, { budget: RUNTIME_CEL_COST_BUDGET }) };
}

const allowAll: Authorizer = { authorize: () => ({ decision: 'allow', reason: '' }) };

function outcome(expr: string): unknown {
  const { compiled, ev } = evaluation(expr, allowAll);
  const r = ev.evaluate(compiled);
  return r.ok ? r.value : r.message.replace(/^expression '[\s\S]*' resulted in error: /, 'error: ');
}

describe('authorization values under == and !=', () => {
  it('== between two of them is no such overload, != is true', () => {
    expect(outcome("authorizer.path('/x') == authorizer.path('/x')")).toBe('error: no such overload');
    expect(outcome("authorizer.path('/x') != authorizer.path('/x')")).toBe(true);
    expect(outcome("authorizer.group('apps') == authorizer.group('apps')")).toBe('error: no such overload');
    expect(outcome("authorizer.group('apps').resource('deployments') == authorizer.group('apps').resource('deployments')")).toBe(
      'error: no such overload',
    );
    expect(outcome("authorizer.serviceAccount('ns', 'sa') == authorizer.serviceAccount('ns', 'sa')")).toBe('error: no such overload');
    expect(outcome("authorizer.path('/x').check('get') == authorizer.path('/x').check('get')")).toBe('error: no such overload');
  });

  it('a value compared with itself is refused too (cel-go asks its Equal, no identity shortcut)', () => {
    expect(outcome('authorizer == authorizer')).toBe('error: no such overload');
    expect(outcome('authorizer != authorizer')).toBe(true);
    expect(outcome('authorizer.requestResource == authorizer.requestResource')).toBe('error: no such overload');
  });

  it('against another type: == fails, != is true, null is unequal', () => {
    expect(outcome("dyn(authorizer.path('/x')) == 1")).toBe('error: no such overload');
    expect(outcome("dyn(authorizer.path('/x')) != 1")).toBe(true);
    expect(outcome("dyn(authorizer.path('/x')) == null")).toBe(false);
  });

  it('in finds nothing; a list equality does not stop at the refused member', () => {
    expect(outcome("authorizer.path('/x') in [authorizer.path('/x')]")).toBe(false);
    expect(outcome("[authorizer.path('/x')] == [authorizer.path('/x')]")).toBe(true);
  });
});

describe('an awaited check() is matched by the request it makes', () => {
  it('a service account check asks once and answers (new values on each re-evaluation)', async () => {
    let calls = 0;
    const slow: Authorizer = {
      authorize: (a) => {
        calls++;
        return Promise.resolve({ decision: a.user.username === 'system:serviceaccount:ns:sa' ? 'allow' : 'deny', reason: '' });
      },
    };
    const { compiled, ev } = evaluation("authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('get').allowed()", slow);
    const r = await ev.evaluateAsync(compiled);
    expect(r).toMatchObject({ ok: true, value: true });
    expect(calls).toBe(1);
  });

  it('two checks of different users are two requests', async () => {
    const seen: string[] = [];
    const slow: Authorizer = {
      authorize: (a) => {
        seen.push(a.user.username);
        return Promise.resolve({ decision: 'allow', reason: '' });
      },
    };
    const { compiled, ev } = evaluation(
      "authorizer.path('/x').check('get').allowed() && authorizer.serviceAccount('ns', 'sa').path('/x').check('get').allowed()",
      slow,
    );
    expect(await ev.evaluateAsync(compiled)).toMatchObject({ ok: true, value: true });
    expect(seen).toEqual(['alice', 'system:serviceaccount:ns:sa']);
  });
});

describe('empty paths and resources are told as Go tells whitespace', () => {
  // authz.go: len(strings.TrimSpace(path)) == 0. Go's unicode.IsSpace counts U+0085 and not U+FEFF,
  // the other way round from JavaScript's trim().
  it('U+0085 alone is empty; U+FEFF is not', () => {
    expect(outcome("authorizer.path('\\u0085').check('get').allowed()")).toBe('error: path must not be empty');
    expect(outcome("authorizer.path('\\ufeff').check('get').allowed()")).toBe(true);
    expect(outcome("authorizer.group('').resource('\\u0085 ').check('get').allowed()")).toBe('error: resource must not be empty');
    expect(outcome("authorizer.group('').resource('\\ufeff').check('get').allowed()")).toBe(true);
  });
});
