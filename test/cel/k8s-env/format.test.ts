/**
 * string.format in kube-apiserver's environment: cel-go's strings library at version 2, whose
 * formatter is ext/formatting.go (x/text's en_US printer for %f and %e).
 */
import { describe, expect, it } from 'vitest';
import { k8sEval } from './run.js';

const INVALID_UTF8 = 'error during formatting: could not convert argument "invalid UTF-8 in bytes, cannot convert to string" to string';

describe('format %s of bytes', () => {
  it('fails on invalid UTF-8, alone or as a list or map member (FormatString: Bytes.ConvertToType(StringType) is an error)', () => {
    expect(k8sEval("'%s'.format([b'ab\\xff'])")).toEqual({ error: INVALID_UTF8 });
    expect(k8sEval("'%s'.format([[b'ok', b'\\xc0\\x80']])")).toEqual({ error: INVALID_UTF8 });
    expect(k8sEval("'%s'.format([{'k': b'\\xed\\xa0\\x80'}])")).toEqual({ error: INVALID_UTF8 });
  });

  it('writes valid UTF-8, and %x takes any bytes', () => {
    expect(k8sEval("'%s|%s'.format([b'\\xc3\\xa9', [b'\\xef\\xbf\\xbd']])")).toEqual({ value: 'é|[b"�"]' });
    expect(k8sEval("'%x'.format([b'\\xff'])")).toEqual({ value: 'ff' });
  });
});
