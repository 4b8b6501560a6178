/** Shared by the sources and clusters tests: policy documents, an s3rver on loopback, a review. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type S3Client, ListObjectsCommand, PutObjectCommand, DeleteObjectCommand } from '@aws-sdk/client-s3';
import { createS3Client } from '../../src/sources/node/index.js';
import type { LogRecord } from '../../src/server/index.js';

/**
 * A MutatingAdmissionPolicy + binding that adds label `key: value` to created Pods: its effect is visible
 * in a reply's patch. `expression` overrides the mutation's CEL.
 */
export function labelPolicy(name: string, key: string, value: string, expression?: string): string {
  const expr = expression ?? `[JSONPatch{op: "add", path: "/metadata/labels/${key}", value: "${value}"}]`;
  return `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: ${name}
spec:
  failurePolicy: Fail
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: ["v1"]
        operations: ["CREATE"]
        resources: ["pods"]
  mutations:
    - patchType: JSONPatch
      jsonPatch:
        expression: '${expr}'
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: ${name}
`;
}

/** A YAML text that does not parse (an unclosed flow mapping), as a half-written upload would be. */
export const CORRUPT_YAML = 'apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: broken\n';

export function podReview(labels: Record<string, string> = {}, uid = '0c7b9c2a-0000-4000-8000-000000000001'): Record<string, unknown> {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'admin' },
      object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      oldObject: null,
      dryRun: false,
    },
  };
}

/** The JSON Patch of an AdmissionReview reply (empty when none). */
export function patchOf(reply: { response?: { patch?: string } }): unknown[] {
  const patch = reply.response?.patch;
  return patch ? (JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as unknown[]) : [];
}

export interface TestS3 {
  endpoint: string;
  port: number;
  /** A client that records each request as `Command status` (e.g. `GetObjectCommand 304`). */
  client: S3Client;
  requests: string[];
  put(key: string, body: string | Uint8Array): Promise<void>;
  remove(key: string): Promise<void>;
  /** Deletes every object and forgets the recorded requests (between tests sharing one server). */
  clear(): Promise<void>;
  /** Stops the server (storage unreachable). */
  stop(): Promise<void>;
  /** Starts it again on the same port and folder. */
  restart(): Promise<void>;
  dispose(): Promise<void>;
}

export const BUCKET = 'policies';
const S3RVER_PROCESS = fileURLToPath(new URL('./s3rver-process.mjs', import.meta.url));

/** s3rver in a child process (see s3rver-process.mjs); resolves once it listens. */
async function runS3rver(port: number, directory: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--openssl-legacy-provider', S3RVER_PROCESS, String(port), directory], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const listening = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`s3rver did not start within 20 s: ${output}`)), 20_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      const m = /LISTENING (\d+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`s3rver exited with ${code}: ${output}`));
    });
  });
  return { child, port: listening };
}

/** s3rver on 127.0.0.1 (a random port) over a temporary folder, with a bucket `policies`. */
export async function startS3(): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'amender-s3-'));
  let { child, port } = await runS3rver(0, directory);
  let running = true;
  const endpoint = `http://127.0.0.1:${port}`;
  const requests: string[] = [];
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const client = await createS3Client({ region: 'us-east-1', endpoint, forcePathStyle: true }, { credentials, maxAttempts: 1 });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        const out = await next(args);
        requests.push(`${context.commandName} ${(out.response as { statusCode?: number }).statusCode}`);
        return out;
      } catch (err) {
        requests.push(`${context.commandName} ${(err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 'error'}`);
        throw err;
      }
    },
    { step: 'deserialize', name: 'countRequests' },
  );
  const admin = await createS3Client({ region: 'us-east-1', endpoint, forcePathStyle: true }, { credentials });
  const stop = async () => {
    if (!running) return;
    running = false;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  return {
    endpoint,
    port,
    client,
    requests,
    put: async (key, body) => {
      await admin.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body, ContentType: 'application/yaml' }));
    },
    remove: async (key) => {
      await admin.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
    },
    clear: async () => {
      const listed = await admin.send(new ListObjectsCommand({ Bucket: BUCKET }));
      await Promise.all((listed.Contents ?? []).map((o) => admin.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: o.Key! }))));
      requests.length = 0;
    },
    stop,
    restart: async () => {
      if (running) return;
      ({ child } = await runS3rver(port, directory));
      running = true;
    },
    dispose: async () => {
      await stop();
      client.destroy();
      admin.destroy();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** A logger that keeps its records. */
export function recordingLogger(): { logs: LogRecord[]; logger: (r: LogRecord) => void } {
  const logs: LogRecord[] = [];
  return { logs, logger: (r) => logs.push(r) };
}
