/**
 * The create-time validation kube-apiserver runs on ConfigMaps and Secrets (kubernetes
 * pkg/apis/core/validation/validation.go ValidateConfigMap, ValidateSecret), minus ObjectMeta's: a
 * document that fails it can never be stored, so it can never be a param a policy reads. Each check
 * reads the object as stored (a Secret's stringData already merged into data; []byte values in their
 * canonical base64), and the errors come in the API server's words, one per problem, in key order (Go
 * walks the maps in random order).
 */
import { strconvQuote } from '../go/index.js';
import { isConfigMapKey } from './names.js';
import { mapField, utf8Total, type Obj } from './object-fields.js';

export interface ObjectFieldError {
  /** field.Path text: `data[key]`, `binaryData[key]`, `` for the whole object. */
  path: string;
  message: string;
}

/** corev1.MaxSecretSize, the bound of a ConfigMap's and a Secret's values together. */
const MAX_SECRET_SIZE = 1024 * 1024;

/** Bytes a canonical (padded) base64 text decodes to. */
function base64Length(text: unknown): number {
  if (typeof text !== 'string') return 0;
  const pad = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  return (text.length / 4) * 3 - pad;
}

function keyErrors(path: string, key: string, out: ObjectFieldError[]): void {
  for (const msg of isConfigMapKey(key)) out.push({ path: `${path}[${key}]`, message: `Invalid value: ${strconvQuote(key)}: ${msg}` });
}

function tooLong(path: string): ObjectFieldError {
  return { path, message: `Too long: may not be more than ${MAX_SECRET_SIZE} bytes` };
}

/** ValidateConfigMap's own checks: keys, a key in both data and binaryData, the total size. */
export function validateConfigMap(cm: Obj): ObjectFieldError[] {
  const out: ObjectFieldError[] = [];
  const data = mapField(cm, 'data');
  const binary = mapField(cm, 'binaryData');
  const texts: string[] = [];
  for (const key of Object.keys(data)) {
    keyErrors('data', key, out);
    if (Object.hasOwn(binary, key)) out.push({ path: `data[${key}]`, message: `Invalid value: ${strconvQuote(key)}: duplicate of key present in binaryData` });
    const value = data[key];
    if (typeof value === 'string') texts.push(value);
  }
  let size = 0;
  for (const key of Object.keys(binary)) {
    keyErrors('binaryData', key, out);
    size += base64Length(binary[key]);
  }
  size += utf8Total(texts, MAX_SECRET_SIZE - size);
  // Go passes the empty path: the error is the whole object's.
  if (size > MAX_SECRET_SIZE) out.push(tooLong(''));
  return out;
}

const required = (path: string): ObjectFieldError => ({ path, message: 'Required value' });

/** ValidateSecret's own checks: keys, the total size, the keys its type requires. */
export function validateSecret(secret: Obj): ObjectFieldError[] {
  const out: ObjectFieldError[] = [];
  const data = mapField(secret, 'data');
  let size = 0;
  for (const key of Object.keys(data)) {
    keyErrors('data', key, out);
    size += base64Length(data[key]);
  }
  if (size > MAX_SECRET_SIZE) out.push(tooLong('data'));
  const has = (key: string) => Object.hasOwn(data, key);
  switch (secret.type) {
    case 'kubernetes.io/service-account-token': {
      const name = mapField(mapField(secret, 'metadata'), 'annotations')['kubernetes.io/service-account.name'];
      if (typeof name !== 'string' || name === '') out.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
      break;
    }
    case 'kubernetes.io/dockercfg':
      if (!has('.dockercfg')) out.push(required('data[.dockercfg]'));
      break;
    case 'kubernetes.io/dockerconfigjson':
      if (!has('.dockerconfigjson')) out.push(required('data[.dockerconfigjson]'));
      break;
    case 'kubernetes.io/basic-auth':
      // Go builds these paths from the literal "data[%s]" (validation.go), so they read so.
      if (!has('username') && !has('password')) out.push(required('data[%s][username]'), required('data[%s][password]'));
      break;
    case 'kubernetes.io/ssh-auth':
      if (base64Length(data['ssh-privatekey']) === 0) out.push(required('data[%s][ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      if (!has('tls.crt')) out.push(required('data[tls.crt]'));
      if (!has('tls.key')) out.push(required('data[tls.key]'));
      break;
  }
  return out;
}
