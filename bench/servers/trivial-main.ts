/**
 * The floor the HTTP suite compares the Node server with: a trivial Hono app that reads the request body
 * and answers a fixed AdmissionReview JSON, served by the same adapter (src/adapters/node.ts) with the
 * same defaults. Bundled by bench/servers.ts like the server's script (Hono's Response and Headers bound to
 * the light classes of src/adapters/web); listens on PORT at 127.0.0.1.
 */
import { Hono } from 'hono';
import { startNodeServer } from '../../src/adapters/node.js';

const app = new Hono();
app.post('/mutate', async (c) => {
  await c.req.text();
  return c.json({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'x', allowed: true } });
});
app.get('/readyz', (c) => c.text('ok'));

const server = await startNodeServer({ fetch: app.fetch, port: Number(process.env.PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
