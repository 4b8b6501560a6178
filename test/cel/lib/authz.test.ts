/**
 * The authorization library through the admission API: `authorizer` in a matchCondition, the user
 * taken from `request.userInfo`, `authorizer.requestResource` from the request's resource.
 */
import { describe, expect, it } from 'vitest';
import {
  Evaluation,
  RUNTIME_CEL_COST_BUDGET,
  compileExpression,
  type AuthorizationAttributes,
  type AuthorizationDecision,
  type Authorizer,
} from '../../../src/cel/index.js';

class Recorder implements Authorizer {
  readonly seen: AuthorizationAttributes[] = [];
  constructor(private readonly answer: (a: AuthorizationAttributes) => AuthorizationDecision) {}
  authorize(a: AuthorizationAttributes): AuthorizationDecision {
    this.seen.push(a);
    return this.answer(a);
  }
}

const user = { username: 'alice', uid: 'u-1', groups: ['dev'], extra: { team: ['x'] } };

interface RequestResource {
  group: string;
  resource: string;
  namespace?: string;
  name?: string;
}

function evaluation(expr: string, authorizer: Authorizer, rr?: RequestResource) {
  const c = compileExpression(expr, 'variable', { params: false });
  if (!c.ok) throw new Error(c.message);
  const request = {
    userInfo: user,
    resource: { group: rr?.group ?? '', version: 'v1', resource: rr?.resource ?? 'pods' },
    namespace: rr?.namespace ?? '',
    name: rr?.name ?? '',
  };
  return { compiled: c.compiled, ev: new Evaluation({ request, authorizer }, { budget: RUNTIME_CEL_COST_BUDGET }) };
}

/** The value, or throws the error message. */
function run(expr: string, authorizer: Authorizer, rr?: RequestResource): unknown {
  const { compiled, ev } = evaluation(expr, authorizer, rr);
  const r = ev.evaluate(compiled);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

async function runAsync(expr: string, authorizer: Authorizer): Promise<unknown> {
  const { compiled, ev } = evaluation(expr, authorizer);
  const r = await ev.evaluateAsync(compiled);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

describe('authorizer', () => {
  it('passes resource attributes as Kubernetes builds them', () => {
    const rec = new Recorder(() => ({ decision: 'allow', reason: 'rbac' }));
    expect(
      run(
        "authorizer.group('apps').resource('deployments').subresource('scale').namespace('ns').name('web').check('update').allowed()",
        rec,
      ),
    ).toBe(true);
    expect(rec.seen).toEqual([
      {
        user,
        verb: 'update',
        resourceRequest: true,
        path: '',
        apiGroup: 'apps',
        apiVersion: '*',
        resource: 'deployments',
        subresource: 'scale',
        namespace: 'ns',
        name: 'web',
      },
    ]);
  });

  it('passes path checks and decisions back', () => {
    const rec = new Recorder(() => ({ decision: 'deny', reason: 'no' }));
    expect(run("authorizer.path('/healthz').check('get').allowed()", rec)).toBe(false);
    expect(run("authorizer.path('/healthz').check('get').reason()", rec)).toBe('no');
    expect(rec.seen[0]).toMatchObject({ resourceRequest: false, path: '/healthz', verb: 'get', user });
  });

  it('checks as a service account when asked', () => {
    const rec = new Recorder(() => ({ decision: 'allow' }));
    run("authorizer.serviceAccount('kube-system', 'builder').group('').resource('pods').check('list').allowed()", rec);
    expect(rec.seen[0].user).toEqual({
      username: 'system:serviceaccount:kube-system:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'],
    });
    expect(() => run("authorizer.serviceAccount('Bad_NS', 'x')", rec)).toThrow('Invalid service account namespace');
    expect(() => run("authorizer.serviceAccount('ns', 'Bad_Name')", rec)).toThrow('Invalid service account name');
  });

  it('offers the request resource, pre-configured', () => {
    const rec = new Recorder(() => ({ decision: 'allow' }));
    run("authorizer.requestResource.check('custom-verb').allowed()", rec, {
      group: 'apps',
      resource: 'deployments',
      namespace: 'default',
      name: 'foo',
    });
    expect(rec.seen[0]).toMatchObject({ apiGroup: 'apps', resource: 'deployments', namespace: 'default', name: 'foo', verb: 'custom-verb' });
  });

  it('reports authorizer failures as errored decisions, never as allowed', () => {
    const failing: Authorizer = {
      authorize() {
        throw new Error('fake authz error');
      },
    };
    expect(run("authorizer.group('').resource('pods').check('get').errored()", failing)).toBe(true);
    expect(run("authorizer.group('').resource('pods').check('get').error()", failing)).toBe('fake authz error');
    expect(run("authorizer.group('').resource('pods').check('get').allowed()", failing)).toBe(false);
    const fine = new Recorder(() => ({ decision: 'allow' }));
    expect(run("authorizer.group('').resource('pods').check('get').error()", fine)).toBe('');
  });

  it('accepts an asynchronous authorizer (a SubjectAccessReview)', async () => {
    const remote: Authorizer = { authorize: async (a) => ({ decision: a.verb === 'get' ? 'allow' : 'deny' }) };
    const expr = "authorizer.group('').resource('pods').check('get').allowed()";
    expect(() => run(expr, remote)).toThrow('evaluate the expression asynchronously');
    expect(await runAsync(expr, remote)).toBe(true);
    const rejecting: Authorizer = { authorize: () => Promise.reject(new Error('timeout')) };
    expect(await runAsync("authorizer.group('').resource('pods').check('get').error()", rejecting)).toBe('timeout');
  });

  it('sends selectors raw, with the field selector parsed or its parse error', () => {
    const rec = new Recorder(() => ({ decision: 'allow' }));
    run("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1,status.phase!=Failed').labelSelector('app=web').check('list')", rec);
    expect(rec.seen[0]).toMatchObject({
      fieldSelector: 'spec.nodeName=n1,status.phase!=Failed',
      fieldSelectorRequirements: [
        { field: 'spec.nodeName', operator: '=', value: 'n1' },
        { field: 'status.phase', operator: '!=', value: 'Failed' },
      ],
      labelSelector: 'app=web',
    });
    run("authorizer.group('').resource('pods').fieldSelector('foo badoperator bar').check('list')", rec);
    expect(rec.seen[1].fieldSelectorParsingErr).toBe("invalid selector: 'foo badoperator bar'; can't understand 'foo badoperator bar'");
  });

  it('rejects empty paths and resources', () => {
    const rec = new Recorder(() => ({ decision: 'allow' }));
    expect(() => run("authorizer.path(' ')", rec)).toThrow('path must not be empty');
    expect(() => run("authorizer.group('').resource('')", rec)).toThrow('resource must not be empty');
  });
});
