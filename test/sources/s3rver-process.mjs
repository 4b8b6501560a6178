// Runs s3rver in its own process (the tests' "storage"): `node --openssl-legacy-provider s3rver-process.mjs
// PORT DIR`. s3rver encrypts ListObjectsV2 continuation tokens with DES, which Node 20's OpenSSL 3 only
// offers through the legacy provider. Prints `LISTENING <port>` once it accepts connections.
import S3rver from 's3rver';

const [port, directory] = process.argv.slice(2);
const server = new S3rver({ address: '127.0.0.1', port: Number(port), silent: true, directory, configureBuckets: [{ name: 'policies' }] });
const address = await server.run();
process.stdout.write(`LISTENING ${address.port}\n`);
process.on('SIGTERM', () => process.exit(0));
