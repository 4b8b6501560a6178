/**
 * Kyverno policies with one construct each that would fail or do nothing at admission (issue 10), and
 * what `validate`, /readyz and the CLI must say about them: the field path, a message, and the effect
 * (`ignored`: the policy is refused; `kept`: it stays in force, the problem reported).
 */
import { stringify } from 'yaml';

export interface Construct {
  name: string;
  /** The policy's rules (each a full rule; `match` defaults to Pods). */
  rules: Record<string, unknown>[];
  /** Extra spec fields. */
  spec?: Record<string, unknown>;
  /** Field path of the problem. */
  path: string;
  message: RegExp;
  effect: 'ignored' | 'kept';
}

const PODS = { any: [{ resources: { kinds: ['Pod'] } }] };
const LABEL = { patchStrategicMerge: { metadata: { labels: { team: 'blue' } } } };

export const CONSTRUCTS: Construct[] = [
  {
    name: 'a JMESPath syntax error in a patchStrategicMerge variable',
    rules: [{ name: 'r', mutate: { patchStrategicMerge: { metadata: { labels: { team: '{{ request.object.metadata.[ }}' } } } } }],
    path: 'spec.rules[0].mutate.patchStrategicMerge.metadata.labels.team',
    message: /invalid JMESPath expression "request\.object\.metadata\.\[": SyntaxError/,
    effect: 'ignored',
  },
  {
    name: 'an unknown function in a patchesJson6902 variable',
    rules: [{ name: 'r', mutate: { patchesJson6902: '- op: add\n  path: /metadata/labels/x\n  value: "{{ upper_case(request.object.metadata.name) }}"' } }],
    path: 'spec.rules[0].mutate.patchesJson6902',
    message: /calls an unknown function: upper_case/,
    effect: 'ignored',
  },
  {
    name: 'an unknown function in a precondition',
    rules: [{ name: 'r', preconditions: { all: [{ key: '{{ no_such(request.object) }}', operator: 'Equals', value: 'x' }] }, mutate: LABEL }],
    path: 'spec.rules[0].preconditions.all[0].key',
    message: /unknown function: no_such/,
    effect: 'ignored',
  },
  {
    name: 'an unknown function in a foreach list',
    rules: [{ name: 'r', mutate: { foreach: [{ list: 'nope(request.object.spec.containers)', patchStrategicMerge: { metadata: { labels: { a: 'b' } } } }] } }],
    path: 'spec.rules[0].mutate.foreach[0].list',
    message: /unknown function: nope/,
    effect: 'ignored',
  },
  {
    name: 'a syntax error in a foreach precondition',
    rules: [
      {
        name: 'r',
        mutate: {
          foreach: [{ list: 'request.object.spec.containers', preconditions: { any: [{ key: '{{ element.name | }}', operator: 'Equals', value: 'a' }] }, patchStrategicMerge: { metadata: { labels: { a: 'b' } } } }],
        },
      },
    ],
    path: 'spec.rules[0].mutate.foreach[0].preconditions.any[0].key',
    message: /invalid JMESPath expression/,
    effect: 'ignored',
  },
  {
    name: 'an unknown function in a context variable',
    rules: [{ name: 'r', context: [{ name: 'v', variable: { jmesPath: 'frobnicate(request.object)' } }], mutate: LABEL }],
    path: 'spec.rules[0].context[0].variable.jmesPath',
    message: /unknown function: frobnicate/,
    effect: 'ignored',
  },
  {
    name: 'a syntax error in a context variable value',
    rules: [{ name: 'r', context: [{ name: 'v', variable: { value: '{{ request.object.metadata.name[ }}' } }], mutate: LABEL }],
    path: 'spec.rules[0].context[0].variable.value',
    message: /invalid JMESPath expression/,
    effect: 'ignored',
  },
  {
    name: 'an apiCall context entry',
    rules: [{ name: 'r', context: [{ name: 'ns', apiCall: { urlPath: '/api/v1/namespaces/{{ request.namespace }}', jmesPath: 'metadata.labels' } }], mutate: LABEL }],
    path: 'spec.rules[0].context[0].apiCall',
    message: /apiCall reads the cluster's API, which Amender does not reach/,
    effect: 'ignored',
  },
  {
    name: 'an apiCall.service context entry',
    rules: [{ name: 'r', context: [{ name: 'ext', apiCall: { service: { url: 'https://example.com/check' } } }], mutate: LABEL }],
    path: 'spec.rules[0].context[0].apiCall',
    message: /apiCall\.service makes an HTTP call/,
    effect: 'ignored',
  },
  {
    name: 'an imageRegistry context entry',
    rules: [{ name: 'r', context: [{ name: 'img', imageRegistry: { reference: 'nginx:1.27' } }], mutate: LABEL }],
    path: 'spec.rules[0].context[0].imageRegistry',
    message: /imageRegistry fetches image data from a registry/,
    effect: 'ignored',
  },
  {
    name: 'a globalReference context entry',
    rules: [{ name: 'r', context: [{ name: 'g', globalReference: { name: 'deployments' } }], mutate: LABEL }],
    path: 'spec.rules[0].context[0].globalReference',
    message: /globalReference reads Kyverno's GlobalContextEntry objects/,
    effect: 'ignored',
  },
  {
    name: 'a configMap the sources do not hold',
    rules: [{ name: 'r', context: [{ name: 'cfg', configMap: { name: 'settings', namespace: 'kyverno' } }], mutate: LABEL }],
    path: 'spec.rules[0].context[0].configMap',
    message: /ConfigMap kyverno\/settings is not among the policy sources/,
    effect: 'ignored',
  },
  {
    name: 'match clusterRoles',
    rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pod'] }, clusterRoles: ['cluster-admin'] }] }, mutate: LABEL }],
    // Kyverno refuses roles in match/exclude in background mode.
    spec: { background: false },
    path: 'spec.rules[0].match',
    message: /an admission request does not carry the requester's roles.*the rule is not run at admission/,
    effect: 'kept',
  },
  {
    name: 'exclude roles',
    rules: [{ name: 'r', exclude: { any: [{ roles: ['shop:admin'] }] }, mutate: LABEL }],
    // Kyverno refuses roles in match/exclude in background mode.
    spec: { background: false },
    path: 'spec.rules[0].exclude',
    message: /roles\/clusterRoles.*the rule is not run at admission/,
    effect: 'kept',
  },
  {
    name: 'mutate-existing targets',
    rules: [{ name: 'r', mutate: { targets: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', namespace: 'shop' }], patchStrategicMerge: { metadata: { labels: { a: 'b' } } } } }],
    path: 'spec.rules[0].mutate.targets',
    message: /mutate-existing rule \(targets\).*the rule is not run/,
    effect: 'kept',
  },
  {
    name: 'a match filter without kinds',
    rules: [{ name: 'r', match: { any: [{ resources: { namespaces: ['shop'] } }] }, mutate: LABEL }],
    path: 'spec.rules[0].match.any[0].resources.kinds',
    message: /is required: Kyverno refuses a match filter that names no kinds/,
    effect: 'ignored',
  },
  {
    name: 'a variable Kyverno does not know',
    rules: [{ name: 'r', mutate: { patchStrategicMerge: { metadata: { labels: { team: '{{ team }}' } } } } }],
    path: 'spec.rules[0].mutate.patchStrategicMerge.metadata.labels.team',
    message: /policy contains invalid variables: variable substitution failed for rule r: variable team must match regex/,
    effect: 'ignored',
  },
  {
    name: 'a kinds typo',
    rules: [{ name: 'r', match: { any: [{ resources: { kinds: ['Pods'] } }] }, mutate: LABEL }],
    path: 'spec.rules[0].match.any[0].resources.kinds[0]',
    message: /kind "Pods" matches no built-in kind and no CustomResourceDefinition/,
    effect: 'kept',
  },
  {
    name: 'a validate rule',
    rules: [{ name: 'v', validate: { message: 'needs a team', pattern: { metadata: { labels: { team: '?*' } } } } }, { name: 'r', mutate: LABEL }],
    path: 'spec.rules[0]',
    message: /a validate rule: Amender is a mutating webhook and runs mutate rules only/,
    effect: 'kept',
  },
];

/** A ClusterPolicy named `name` with the construct's rules. */
export function constructPolicy(name: string, c: Pick<Construct, 'rules' | 'spec'>): Record<string, unknown> {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name },
    spec: { ...(c.spec ?? {}), rules: c.rules.map((r) => ({ match: PODS, ...r })) },
  };
}

export function yamlDocuments(docs: readonly unknown[]): string {
  // Written as YAML 1.1, as it is read (a `yes` stays the text it was).
  return docs.map((d) => stringify(d, { version: '1.1' })).join('---\n');
}

/** Kyverno documents that are not ClusterPolicy / Policy: left out, with why. */
export const FOREIGN: { doc: Record<string, unknown>; message: RegExp }[] = [
  { doc: { apiVersion: 'policies.kyverno.io/v1', kind: 'ValidatingPolicy', metadata: { name: 'vpol' }, spec: {} }, message: /ValidatingPolicy is not a mutating policy \(it validates requests\)/ },
  { doc: { apiVersion: 'policies.kyverno.io/v1', kind: 'GeneratingPolicy', metadata: { name: 'gpol' }, spec: {} }, message: /GeneratingPolicy is not a mutating policy \(it creates other resources\)/ },
  { doc: { apiVersion: 'policies.kyverno.io/v1beta1', kind: 'ImageValidatingPolicy', metadata: { name: 'ivpol' }, spec: {} }, message: /ImageValidatingPolicy is not a mutating policy/ },
  { doc: { apiVersion: 'policies.kyverno.io/v1alpha1', kind: 'DeletingPolicy', metadata: { name: 'dpol' }, spec: {} }, message: /DeletingPolicy is not a mutating policy/ },
  { doc: { apiVersion: 'policies.kyverno.io/v1', kind: 'MutatingPolicys', metadata: { name: 'typo' }, spec: {} }, message: /unknown policies\.kyverno\.io kind "MutatingPolicys"/ },
  { doc: { apiVersion: 'kyverno.io/v2', kind: 'PolicyException', metadata: { name: 'exc', namespace: 'shop' }, spec: {} }, message: /Amender does not apply Kyverno PolicyExceptions/ },
];
