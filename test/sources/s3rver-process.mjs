// Runs s3rver in its own process (the tests' "storage"): `node --openssl-legacy-provider s3rver-process.mjs
// PORT DIR [url-encoding]`. s3rver encrypts ListObjectsV2 continuation tokens with DES, which Node 20's OpenSSL 3 only
// offers through the legacy provider. Prints `LISTENING <port>` once it accepts connections.
//
// s3rver ignores ListObjects' `encoding-type=url` (its keys are written raw in the XML, whatever the client
// asked). With `url-encoding`, its listing answers that parameter as S3 does: `<EncodingType>url</EncodingType>`
// and the keys, prefixes and start-after URL-encoded as a form is (a space as `+`, `+` as `%2B`, `/` kept), as
// measured against AWS S3.
import { createRequire } from 'node:module';
import S3rver from 's3rver';

const [port, directory, mode] = process.argv.slice(2);
if (mode === 'url-encoding') {
  const bucketCtrl = createRequire(import.meta.url)('s3rver/lib/controllers/bucket.js');
  const getBucket = bucketCtrl.getBucket;
  const encode = (s) => (typeof s === 'string' ? encodeURIComponent(s).replace(/%2F/g, '/').replace(/%20/g, '+') : s);
  bucketCtrl.getBucket = async function (ctx) {
    await getBucket(ctx);
    const result = ctx.body?.ListBucketResult;
    if (ctx.query['encoding-type'] !== 'url' || !result) return;
    ctx.body = {
      ListBucketResult: {
        ...result,
        EncodingType: 'url',
        Prefix: encode(result.Prefix),
        StartAfter: encode(result.StartAfter),
        Delimiter: encode(result.Delimiter),
        Contents: result.Contents.map((o) => ({ ...o, Key: encode(o.Key) })),
        CommonPrefixes: result.CommonPrefixes.map((p) => ({ Prefix: encode(p.Prefix) })),
      },
    };
  };
}
const server = new S3rver({ address: '127.0.0.1', port: Number(port), silent: true, directory, configureBuckets: [{ name: 'policies' }] });
const address = await server.run();
process.stdout.write(`LISTENING ${address.port}\n`);
process.on('SIGTERM', () => process.exit(0));
