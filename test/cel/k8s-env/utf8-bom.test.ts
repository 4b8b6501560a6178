/**
 * A leading U+FEFF is text in Go: string(bytes), format's %s of bytes and url()'s unescaping keep it.
 * TextDecoder drops it unless told not to (ignoreBOM), which made string(b'\xef\xbb\xbfa') 'a'.
 */
import { describe, expect, it } from 'vitest';
import { k8sEval } from './run.js';

describe('a leading byte order mark in bytes and escapes', () => {
  it('string(bytes) keeps it (cel-go Bytes.ConvertToType: String(b))', () => {
    expect(k8sEval("string(b'\\xef\\xbb\\xbfa')")).toEqual({ value: '\ufeffa' });
    expect(k8sEval("string(b'\\xef\\xbb\\xbf').size()")).toEqual({ value: 1n });
  });

  it("format's %s keeps it, and a list member quotes it as Go's %q does", () => {
    expect(k8sEval("'%s'.format([b'\\xef\\xbb\\xbfa'])")).toEqual({ value: '\ufeffa' });
    expect(k8sEval("'%s'.format([[b'\\xef\\xbb\\xbfa']])")).toEqual({ value: '[b"\\ufeffa"]' });
  });

  it('url() unescapes %EF%BB%BF to U+FEFF in a query and a host', () => {
    expect(k8sEval("url('https://h/?a=%EF%BB%BFb').getQuery()['a'][0]")).toEqual({ value: '\ufeffb' });
    expect(k8sEval("url('https://%EF%BB%BFh/').getHostname()")).toEqual({ value: '\ufeffh' });
  });
});
