/** A Lambda Function URL event (payload 2.0) posting `body` to /mutate, as AWS delivers it. */
export function functionUrlEvent(body: string): unknown {
  const host = 'x.lambda-url.eu-west-1.on.aws';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/mutate',
    rawQueryString: '',
    headers: { host, 'content-type': 'application/json' },
    requestContext: { domainName: host, http: { method: 'POST', path: '/mutate', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1' }, stage: '$default' },
    body,
    isBase64Encoded: false,
  };
}
