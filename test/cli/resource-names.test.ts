import { describe, expect, it } from 'vitest';
import { crdResource, guessResource } from '../../src/cli/resource-names.js';

describe('resource names for apply and test', () => {
  it('pluralises built-in kinds as the API server names them', () => {
    expect(guessResource('Pod')).toBe('pods');
    expect(guessResource('Deployment')).toBe('deployments');
    expect(guessResource('Ingress')).toBe('ingresses');
    expect(guessResource('NetworkPolicy')).toBe('networkpolicies');
    expect(guessResource('Endpoints')).toBe('endpoints');
    expect(guessResource('Gateway')).toBe('gateways');
  });

  it('takes a CRD\'s declared plural first', () => {
    const crd = { kind: 'CustomResourceDefinition', spec: { group: 'example.com', names: { kind: 'Octopus', plural: 'octopodes' } } };
    expect(crdResource([crd], 'example.com', 'Octopus')).toBe('octopodes');
    expect(crdResource([crd], 'other.com', 'Octopus')).toBeUndefined();
  });
});
