/**
 * The deployment files, checked offline: every YAML in infra/ parses; Kubernetes objects validate against
 * their schemas (kubernetes-models) and the API server's webhook rule checks; the webhook examples cover
 * exactly what `amender webhook-config` derives from policies/; the Knative Service, Dockerfile, SAM
 * template and wrangler.toml agree with the code they deploy (entry points, ports, paths, variables).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { MutatingWebhookConfiguration } from 'kubernetes-models/admissionregistration.k8s.io/v1';
import { ConfigMap, Namespace, Pod } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, type Tags } from 'yaml';
import { ENVIRONMENT_VARIABLES as NODE_VARIABLES } from '../../src/adapters/node-config.js';
import { SERVERLESS_ENVIRONMENT_VARIABLES } from '../../src/adapters/serverless-config.js';
import { runCli } from '../../src/cli/main.js';
import { isClusterName } from '../../src/clusters/index.js';
import { buildPolicySet, parseDocuments } from '../../src/policyset/index.js';
import { S3_ENVIRONMENT_VARIABLES } from '../../src/sources/node/index.js';
import { ruleProblems, type WebhookRule } from '../../src/webhook-config/index.js';
import { fakeIO } from '../cli/fake-io.js';
import { ROOT } from '../node/built.js';

const INFRA = join(ROOT, 'infra');
const run = promisify(execFile);

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** CloudFormation's short-form intrinsic functions, read as `{ "Fn::X": value }` / `{ Ref: value }`. */
const CFN_TAGS: Tags = ['Ref', 'Sub', 'GetAtt', 'If', 'Not', 'Equals', 'And', 'Or', 'Join', 'Select', 'Split', 'FindInMap', 'ImportValue', 'Base64', 'Condition', 'GetAZs', 'Cidr'].flatMap(
  (name) => {
    const key = name === 'Ref' || name === 'Condition' ? name : `Fn::${name}`;
    const resolve = (value: unknown) => ({ [key]: name === 'GetAtt' && typeof value === 'string' ? value.split('.') : value });
    return [
      { tag: `!${name}`, resolve: (value: string) => resolve(value) },
      { tag: `!${name}`, collection: 'seq' as const, resolve: (value: { toJSON(): unknown }) => resolve(value.toJSON()) },
      { tag: `!${name}`, collection: 'map' as const, resolve: (value: { toJSON(): unknown }) => resolve(value.toJSON()) },
    ];
  },
);

function yamlDocuments(path: string): Record<string, unknown>[] {
  const text = readFileSync(path, 'utf8');
  const docs = parseAllDocuments(text, { customTags: path.endsWith('template.yaml') ? CFN_TAGS : [] });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const d of list) expect(d.errors.map((e) => e.message), relative(ROOT, path)).toEqual([]);
  return list.map((d) => d.toJSON() as Record<string, unknown>).filter((d) => d !== null);
}

const yamlFiles = filesUnder(INFRA).filter((f) => /\.ya?ml$/.test(f));
const kubernetesObjects = yamlFiles.filter((f) => !f.endsWith('template.yaml')).flatMap((f) => yamlDocuments(f).map((doc) => ({ file: relative(ROOT, f), doc })));

interface Webhook {
  name: string;
  rules: WebhookRule[];
  clientConfig: { url: string; caBundle?: string };
  namespaceSelector?: { matchExpressions?: { key: string; operator: string; values: string[] }[] };
  [key: string]: unknown;
}

describe('infra/: every file parses', () => {
  it('finds the files the brief asks for', () => {
    const names = filesUnder(INFRA).map((f) => relative(INFRA, f)).sort();
    expect(names).toEqual(
      expect.arrayContaining([
        'knative/Dockerfile',
        'knative/service.yaml',
        'kubernetes/mutating-webhook-clusters.yaml',
        'kubernetes/mutating-webhook-knative.yaml',
        'kubernetes/mutating-webhook-lambda.yaml',
        'lambda/README.md',
        'lambda/template.yaml',
      ]),
    );
  });

  it('parses every YAML document, each with apiVersion and kind (or a CloudFormation template)', () => {
    expect(yamlFiles.length).toBeGreaterThanOrEqual(5);
    for (const { file, doc } of kubernetesObjects) {
      expect(typeof doc.apiVersion, file).toBe('string');
      expect(typeof doc.kind, file).toBe('string');
      expect(typeof (doc.metadata as { name?: unknown })?.name, file).toBe('string');
    }
  });
});

describe('infra/kubernetes: MutatingWebhookConfigurations', () => {
  const configs = kubernetesObjects.filter(({ doc }) => doc.kind === 'MutatingWebhookConfiguration');

  it('validate against the schema and the API server\'s rule checks', () => {
    expect(configs.length).toBeGreaterThanOrEqual(4);
    for (const { file, doc } of configs) {
      new MutatingWebhookConfiguration(doc as never).validate();
      const webhooks = doc.webhooks as Webhook[];
      expect(new Set(webhooks.map((w) => w.name)).size, file).toBe(webhooks.length);
      for (const [i, w] of webhooks.entries()) {
        expect(w.rules.flatMap((r, j) => ruleProblems(r, `${file} webhooks[${i}].rules[${j}]`))).toEqual([]);
        expect(w.name.split('.').length, `${file}: webhook names are fully qualified`).toBeGreaterThanOrEqual(3);
      }
    }
  });

  it('say what Amender needs: no side effects, v1 reviews, Equivalent, a bounded timeout, explicit policies, system namespaces excluded, https without a query', () => {
    for (const { file, doc } of configs) {
      for (const w of doc.webhooks as Webhook[]) {
        expect(w, file).toMatchObject({ sideEffects: 'None', admissionReviewVersions: ['v1'], matchPolicy: 'Equivalent' });
        expect(['Fail', 'Ignore'], file).toContain(w.failurePolicy);
        expect(['Never', 'IfNeeded'], file).toContain(w.reinvocationPolicy);
        expect(w.timeoutSeconds as number, file).toBeGreaterThanOrEqual(1);
        expect(w.timeoutSeconds as number, file).toBeLessThanOrEqual(30);
        const url = new URL(w.clientConfig.url);
        expect(url.protocol, file).toBe('https:');
        expect(url.search + url.hash, file).toBe('');
        const excluded = w.namespaceSelector?.matchExpressions?.find((e) => e.key === 'kubernetes.io/metadata.name' && e.operator === 'NotIn')?.values ?? [];
        expect(excluded, file).toContain('kube-system');
      }
    }
  });

  it('cover exactly what `amender webhook-config` derives from policies/', async () => {
    const files: Record<string, string> = {};
    for (const f of readdirSync(join(ROOT, 'policies'))) if (f.endsWith('.yaml')) files[`policies/${f}`] = readFileSync(join(ROOT, 'policies', f), 'utf8');
    const io = fakeIO(files);
    expect(await runCli(['webhook-config', '--url', 'https://example.com/mutate', '--policies', 'policies', '--json'], io)).toBe(0);
    const derived = JSON.parse(io.stdout).webhooks[0] as Webhook;
    for (const { file, doc } of configs) {
      for (const w of doc.webhooks as Webhook[]) {
        expect(w.rules, file).toEqual(derived.rules);
        expect(w.reinvocationPolicy, file).toBe(derived.reinvocationPolicy);
      }
    }
  });

  it('one configuration per cluster, each with its own cluster path and secret', () => {
    const clustered = configs.filter(({ file }) => file.endsWith('mutating-webhook-clusters.yaml'));
    expect(clustered.length).toBe(2);
    const seen = new Set<string>();
    for (const { doc } of clustered) {
      const label = (doc.metadata as { labels: Record<string, string> }).labels['amender.dev/cluster'];
      const [w] = doc.webhooks as Webhook[];
      const m = /^\/clusters\/([^/]+)\/([^/]+)\/mutate$/.exec(new URL(w.clientConfig.url).pathname);
      expect(m, w.clientConfig.url).not.toBeNull();
      expect(m![1]).toBe(label);
      expect(isClusterName(m![1])).toBe(true);
      expect(seen.has(m![2])).toBe(false);
      seen.add(m![2]);
    }
  });

  it('the in-cluster example excludes the namespace Amender runs in', () => {
    const service = kubernetesObjects.find(({ doc }) => doc.kind === 'Service' && doc.apiVersion === 'serving.knative.dev/v1')!.doc;
    const namespace = (service.metadata as { namespace: string }).namespace;
    const knative = configs.find(({ file }) => file.endsWith('mutating-webhook-knative.yaml'))!.doc;
    const w = (knative.webhooks as Webhook[])[0];
    expect(w.namespaceSelector!.matchExpressions![0].values).toContain(namespace);
  });
});

describe('infra/knative', () => {
  const objects = kubernetesObjects.filter(({ file }) => file.startsWith('infra/knative/')).map(({ doc }) => doc);
  const service = objects.find((d) => d.kind === 'Service' && d.apiVersion === 'serving.knative.dev/v1')!;
  type Container = {
    image: string;
    ports?: { name?: string; containerPort: number }[];
    env?: { name: string; value?: string }[];
    readinessProbe?: { httpGet?: { path: string; port?: number } };
    livenessProbe?: { httpGet?: { path: string; port?: number } };
    volumeMounts?: { name: string; mountPath: string }[];
    securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; readOnlyRootFilesystem?: boolean };
  };
  const template = (service?.spec as { template: { metadata: { annotations: Record<string, string> }; spec: { containers: Container[]; volumes?: { name: string; configMap?: { name: string } }[] } } })?.template;

  it('validates its core objects and the pod template against the Kubernetes schemas', () => {
    expect(service).toBeDefined();
    for (const d of objects) {
      if (d.kind === 'ConfigMap') new ConfigMap(d as never).validate();
      if (d.kind === 'Namespace') new Namespace(d as never).validate();
    }
    // Knative's template spec is a subset of a PodSpec, once Knative has defaulted the probes' port to
    // the container's (Knative lets it be left out; a PodSpec needs it).
    const { containerConcurrency: _c, timeoutSeconds: _t, ...podSpec } = structuredClone(template.spec) as Record<string, unknown>;
    for (const c of podSpec.containers as Container[]) {
      for (const probe of [c.readinessProbe, c.livenessProbe]) if (probe?.httpGet && probe.httpGet.port === undefined) probe.httpGet.port = c.ports![0].containerPort;
    }
    new Pod({ metadata: { name: 'template' }, spec: podSpec } as never).validate();
  });

  it('keeps one instance warm, probes /readyz and /healthz on the serving port', () => {
    const minScale = template.metadata.annotations['autoscaling.knative.dev/min-scale'];
    expect(minScale).toMatch(/^[1-9]\d*$/);
    expect(template.spec.containers).toHaveLength(1);
    const [c] = template.spec.containers;
    expect(c.ports).toHaveLength(1);
    expect(['http1', 'h2c']).toContain(c.ports![0].name);
    expect(c.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(c.livenessProbe?.httpGet?.path).toBe('/healthz');
    for (const probe of [c.readinessProbe, c.livenessProbe]) if (probe?.httpGet?.port !== undefined) expect(probe.httpGet.port).toBe(c.ports![0].containerPort);
  });

  it('mounts the policy ConfigMap where AMENDER_POLICY_SOURCES points, and sets only variables the server reads', () => {
    const [c] = template.spec.containers;
    for (const e of c.env ?? []) expect(NODE_VARIABLES, e.name).toContain(e.name);
    const sources = c.env!.find((e) => e.name === 'AMENDER_POLICY_SOURCES')!.value!.split(',');
    const mounts = new Map((c.volumeMounts ?? []).map((m) => [m.name, m.mountPath]));
    const volumes = template.spec.volumes ?? [];
    for (const v of volumes) expect(mounts.has(v.name), v.name).toBe(true);
    const policyVolume = volumes.find((v) => sources.includes(`file://${mounts.get(v.name)}`));
    expect(policyVolume?.configMap?.name).toBeDefined();
    const configMap = objects.find((d) => d.kind === 'ConfigMap' && (d.metadata as { name: string }).name === policyVolume!.configMap!.name);
    expect(configMap, 'the ConfigMap the volume names is in the same file set').toBeDefined();
    expect((configMap!.metadata as { namespace: string }).namespace).toBe((service.metadata as { namespace: string }).namespace);
    // The example policies load cleanly.
    const data = configMap!.data as Record<string, string>;
    const set = buildPolicySet(Object.entries(data).map(([name, text]) => parseDocuments(name, text)));
    expect(set.problems).toEqual([]);
    expect(set.counts.mutatingAdmissionPolicies).toBeGreaterThan(0);
  });

  it('runs as the non-root user of the image, with a read-only root file system', () => {
    const [c] = template.spec.containers;
    const user = /^USER\s+(\d+)(?::\d+)?\s*$/m.exec(readFileSync(join(INFRA, 'knative/Dockerfile'), 'utf8'))![1];
    expect(c.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: Number(user), readOnlyRootFilesystem: true });
  });
});

describe('infra/knative/Dockerfile', () => {
  const text = readFileSync(join(INFRA, 'knative/Dockerfile'), 'utf8');
  const lines = text.split('\n').filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
  const stages = lines.map((l, i) => ({ l, i })).filter(({ l }) => /^FROM\s/i.test(l));
  const finalStage = lines.slice(stages[stages.length - 1].i);

  it('is multi-stage, with pinned base images', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const { l } of stages) {
      const m = /^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(l.trim());
      expect(m, l).not.toBeNull();
      expect(m![2], `${l}: named stage`).toBeDefined();
      expect(m![1], `${l}: a tag or digest`).toMatch(/[:@]/);
      expect(m![1]).not.toMatch(/:latest$/);
    }
  });

  it('builds with the lock file and the build script, and ships only dist/node and the bundled policies', () => {
    expect(text).toMatch(/^RUN npm ci\b/m);
    expect(text).toMatch(/^RUN node scripts\/build\.mjs node$/m);
    const copies = finalStage.filter((l) => /^COPY\s/i.test(l));
    expect(copies.every((l) => /--from=(build|compile-cache)\s/.test(l))).toBe(true);
    expect(copies.map((l) => l.split(/\s+/).slice(-2, -1)[0])).toEqual(['/app/dist/node', '/src/policies']);
    expect(finalStage.some((l) => /^(RUN|ADD)\s/i.test(l))).toBe(false);
  });

  it('runs on Node 24, its compile cache written by the runtime image\'s own Node', () => {
    const bases = stages.map(({ l }) => l.trim().split(/\s+/)[1]);
    expect(bases.every((b) => /node(js)?:?24\b/.test(b)), bases.join(', ')).toBe(true);
    const cacheStage = stages.find(({ l }) => /\sAS\s+compile-cache$/i.test(l.trim()))!;
    expect(cacheStage.l.trim().split(/\s+/)[1]).toBe(stages[stages.length - 1].l.trim().split(/\s+/)[1]);
    expect(text).toMatch(/^RUN \["\/nodejs\/bin\/node", "scripts\/compile-cache\.mjs", "dist\/node", "node"/m);
  });

  it('runs as a numeric non-root user, in exec form, on the Knative port', () => {
    const user = finalStage.find((l) => /^USER\s/i.test(l));
    expect(user).toMatch(/^USER\s+[1-9]\d*(:\d+)?$/);
    const cmd = finalStage.find((l) => /^(CMD|ENTRYPOINT)\s/i.test(l))!;
    expect(() => JSON.parse(cmd.replace(/^(CMD|ENTRYPOINT)\s+/i, ''))).not.toThrow();
    expect(JSON.parse(cmd.replace(/^(CMD|ENTRYPOINT)\s+/i, ''))).toEqual(['dist/node/main.js']);
    const exposed = Number(/^EXPOSE\s+(\d+)/m.exec(text)![1]);
    const service = kubernetesObjects.find(({ doc }) => doc.kind === 'Service' && doc.apiVersion === 'serving.knative.dev/v1')!.doc as {
      spec: { template: { spec: { containers: { ports: { containerPort: number }[] }[] } } };
    };
    expect(service.spec.template.spec.containers[0].ports[0].containerPort).toBe(exposed);
    expect(/^ENV .*\bPORT=(\d+)/m.exec(text)![1]).toBe(String(exposed));
  });

  it('copies only what exists and what its ignore file lets through', () => {
    const ignore = readFileSync(join(INFRA, 'knative/Dockerfile.dockerignore'), 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('#'));
    expect(ignore[0]).toBe('**');
    const allowed = ignore.filter((l) => l.startsWith('!')).map((l) => l.slice(1).replace(/\/\*\*$/, ''));
    for (const l of lines.filter((x) => /^COPY\s/i.test(x) && !/--from=/.test(x))) {
      const sources = l.split(/\s+/).slice(1, -1);
      for (const s of sources) {
        expect(existsSync(join(ROOT, s)), `${s} exists`).toBe(true);
        expect(allowed, `${s} is in the build context`).toContain(s.replace(/\/$/, ''));
      }
    }
  });
});

describe('infra/lambda/template.yaml (SAM)', () => {
  const [template] = yamlDocuments(join(INFRA, 'lambda/template.yaml')) as {
    Transform: string;
    Parameters: Record<string, unknown>;
    Conditions?: Record<string, unknown>;
    Globals?: { Function?: Record<string, unknown> };
    Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
    Outputs: Record<string, unknown>;
  }[];
  const functions = Object.entries(template.Resources).filter(([, r]) => r.Type === 'AWS::Serverless::Function');

  it('is a SAM template with one function behind a Function URL', () => {
    expect(template.Transform).toBe('AWS::Serverless-2016-10-31');
    expect(functions).toHaveLength(1);
    const [, fn] = functions[0];
    expect(fn.Properties.FunctionUrlConfig).toMatchObject({ AuthType: 'NONE' });
    const runtime = fn.Properties.Runtime ?? template.Globals?.Function?.Runtime;
    expect(runtime).toBe('nodejs24.x');
    const timeout = (fn.Properties.Timeout ?? template.Globals?.Function?.Timeout) as number;
    expect(timeout).toBeLessThanOrEqual(30);
  });

  it('points at the built handler', () => {
    const [, fn] = functions[0];
    const codeDir = join(INFRA, 'lambda', fn.Properties.CodeUri as string);
    expect(relative(ROOT, codeDir)).toBe('dist/lambda');
    const [file, exported] = (fn.Properties.Handler as string).split('.');
    const bundle = join(codeDir, `${file}.mjs`);
    // `export{handler}`, or `export{x as handler}` once minified.
    if (existsSync(bundle)) expect(new RegExp(`export\\s*\\{[^}]*\\b${exported}\\s*[,}]`).test(readFileSync(bundle, 'utf8'))).toBe(true);
    else expect(file).toBe('index'); // not built yet: the build's outfile is dist/lambda/index.mjs
  });

  it('sets only variables the Lambda adapter reads', () => {
    const [, fn] = functions[0];
    const names = Object.keys((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables);
    const known = [...SERVERLESS_ENVIRONMENT_VARIABLES, ...S3_ENVIRONMENT_VARIABLES, 'NODE_OPTIONS'];
    for (const n of names) expect(known, n).toContain(n);
    expect(names).toContain('AMENDER_POLICY_SOURCES');
  });

  it('refers only to what it defines', () => {
    const defined = new Set([...Object.keys(template.Parameters), ...Object.keys(template.Resources)]);
    // SAM generates <Function>Url for FunctionUrlConfig.
    for (const [name, r] of functions) if (r.Properties.FunctionUrlConfig) defined.add(`${name}Url`);
    const conditions = new Set(Object.keys(template.Conditions ?? {}));
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) return value.forEach(walk);
      if (value === null || typeof value !== 'object') return;
      for (const [k, v] of Object.entries(value)) {
        if (k === 'Ref' && typeof v === 'string' && !v.startsWith('AWS::')) expect(defined, `Ref ${v}`).toContain(v);
        if (k === 'Fn::GetAtt') expect(defined, `GetAtt ${(v as string[])[0]}`).toContain((v as string[])[0]);
        if (k === 'Fn::If') expect(conditions, `If ${(v as unknown[])[0]}`).toContain((v as unknown[])[0]);
        if (k === 'Fn::Sub' && typeof v === 'string') for (const m of v.matchAll(/\$\{([^}.!]+)/g)) if (!m[1].startsWith('AWS::')) expect(defined, `Sub ${m[1]}`).toContain(m[1]);
        walk(v);
      }
    };
    walk(template.Resources);
    walk(template.Outputs);
  });

  it('documents every setting in infra/lambda/README.md', () => {
    const readme = readFileSync(join(INFRA, 'lambda/README.md'), 'utf8');
    for (const name of [...SERVERLESS_ENVIRONMENT_VARIABLES, ...S3_ENVIRONMENT_VARIABLES]) expect(readme, name).toContain(`\`${name}\``);
  });
});

describe('wrangler.toml', () => {
  it('parses, binds the R2 bucket its sources name, and sets only variables the Worker reads', async () => {
    const { unstable_readConfig } = await import('wrangler');
    const config = unstable_readConfig({ config: join(ROOT, 'wrangler.toml') }, {});
    expect(config.name).toBe('amender');
    expect(relative(ROOT, config.main!)).toBe('dist/workers/index.js');
    expect(config.no_bundle).toBe(true);
    expect(config.compatibility_flags ?? []).not.toContain('nodejs_compat');
    const vars = config.vars as Record<string, string>;
    for (const name of Object.keys(vars)) expect(SERVERLESS_ENVIRONMENT_VARIABLES, name).toContain(name);
    const bindings = (config.r2_buckets as { binding: string }[]).map((b) => b.binding);
    for (const source of vars.AMENDER_POLICY_SOURCES.split(',')) {
      const m = /^r2:\/\/([^/]+)/.exec(source.trim());
      if (m) expect(bindings, source).toContain(m[1]);
    }
  });

  it('deploys (dry run) the built Worker well under the free plan\'s 3 MB compressed', async () => {
    if (!existsSync(join(ROOT, 'dist/workers/index.js'))) await run(process.execPath, [join(ROOT, 'scripts/build.mjs'), 'workers'], { cwd: ROOT });
    const out = mkdtempSync(join(tmpdir(), 'amender-wrangler-'));
    try {
      const { stdout } = await run(process.execPath, [join(ROOT, 'node_modules/wrangler/bin/wrangler.js'), 'deploy', '--dry-run', '--outdir', out], {
        cwd: ROOT,
        env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false', CI: 'true' },
        timeout: 120_000,
      });
      const m = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(stdout);
      expect(m, stdout).not.toBeNull();
      expect(Number(m![2])).toBeLessThan(1024); // KiB: a third of the limit at most
      expect(stdout).toContain('env.POLICIES (amender-policies)');
      expect(stdout).not.toMatch(/Attaching additional modules/);
      expect(dirname(join(out, 'index.js'))).toBe(out);
      expect(existsSync(join(out, 'index.js'))).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
