/** An error crypto/x509 reports (the message is Go's). */
export class X509Error extends Error {}
