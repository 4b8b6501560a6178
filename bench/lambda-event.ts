/**
 * A Lambda Function URL event (payload 2.0) posting `body` to /mutate, as AWS delivers it for the API
 * server's call: the client's headers (it always sends Content-Length) and those the URL adds.
 */
export function functionUrlEvent(body: string): unknown {
  const host = 'x.lambda-url.eu-west-1.on.aws';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/mutate',
    rawQueryString: '',
    headers: {
      host,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      accept: 'application/json, */*',
      'user-agent': 'kube-apiserver-admission',
      'x-forwarded-proto': 'https',
      'x-forwarded-port': '443',
      'x-forwarded-for': '203.0.113.7',
      'x-amzn-trace-id': 'Root=1-67e2d1c0-0a1b2c3d4e5f60718293a4b5',
    },
    requestContext: { domainName: host, http: { method: 'POST', path: '/mutate', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1' }, stage: '$default' },
    body,
    isBase64Encoded: false,
  };
}
