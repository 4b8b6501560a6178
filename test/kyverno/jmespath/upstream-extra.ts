/**
 * Upstream Kyverno JMESPath cases not yet in test/kyverno/jmespath/vectors.ts (kyverno/kyverno @ 111e07bbecc6,
 * pkg/engine/jmespath/arithmetic_test.go and functions_test.go). Same Vector shape; all pass (audit h9).
 * Run by functions.test.ts as its own group.
 */
import type { Vector } from './vectors.js';

export const upstreamExtraVectors: Vector[] = [
  // (K) Test_Sum sum([]) -> error
  {"expr": "sum([])", "error": ""},
  // (K) Test_Sum sum(Scalar[]) -> Scalar
  {"expr": "sum([`12`, `13`])", "result": 25.0},
  // (K) Test_Sum sum(Scalar[Scalar, Quatity, ..]) -> error
  {"expr": "sum([`12`, '13'])", "error": ""},
  // (K) Test_Sum sum(Quantity[]) -> Quantity
  {"expr": "sum(['12Ki', '13Ki'])", "result": "25Ki"},
  // (K) Test_Sum sum(Quantity[Quantity, Duration, ..]) -> error
  {"expr": "sum(['12Ki', '13s'])", "error": ""},
  // (K) Test_Sum sum(Quantity[Quantity, Scalar, ..]) -> error
  {"expr": "sum(['12Ki', `13`])", "error": ""},
  // (K) Test_Sum sum(Duration[]) -> Duration
  {"expr": "sum(['12s'])", "result": "12s"},
  // (K) Test_Sum sum(Duration[]) -> Duration
  {"expr": "sum(['12s', '13s'])", "result": "25s"},
  // (K) Test_Sum sum(Duration[Duration, Quantity, ..]) -> error
  {"expr": "sum(['12s', '13Ki'])", "error": ""},
  // (K) Test_Sum sum(Duration[Duration, Quantity, ..]) -> error
  {"expr": "sum(['12s', '13'])", "error": ""},
  // (K) Test_Subtract Scalar - Quantity -> error
  {"expr": "subtract(`12`, '13Ki')", "error": ""},
  // (K) Test_Subtract Scalar - Quantity -> error
  {"expr": "subtract(`12`, '13')", "error": ""},
  // (K) Test_Subtract Quantity - Duration -> error
  {"expr": "subtract('12Ki', '13s')", "error": ""},
  // (K) Test_Subtract Quantity - Scalar -> error
  {"expr": "subtract('12Ki', `13`)", "error": ""},
  // (K) Test_Subtract Duration - Scalar -> error
  {"expr": "subtract('12s', `13`)", "error": ""},
  // (K) Test_Subtract Duration - Quantity -> error
  {"expr": "subtract('12s', '13')", "error": ""},
  // (K) Test_Multiply Duration * Quantity -> error
  {"expr": "multiply('12s', '12Ki')", "error": ""},
  // (K) Test_Multiply Duration * Quantity -> error
  {"expr": "multiply('12s', '12')", "error": ""},
  // (K) Test_Divide Duration / Quantity -> error
  {"expr": "divide('12s', '4')", "error": ""},
  // (K) Test_Divide Scalar / Quantity -> error
  {"expr": "divide(`14`, '5Ki')", "error": ""},
  // (K) Test_Divide Quantity / Zero -> error
  {"expr": "divide('4', `0`)", "error": ""},
  // (K) Test_Modulo Quantity % Duration -> error
  {"expr": "modulo('12Ki', '13s')", "error": ""},
  // (K) Test_Modulo Duration % Quantity -> error
  {"expr": "modulo('13s', '12Ki')", "error": ""},
  // (K) Test_Modulo Scalar % Quantity -> error
  {"expr": "modulo(`13`, '12Ki')", "error": ""},
  // (K) Test_Modulo Scalar % Duration -> error
  {"expr": "modulo(`13`, '5s')", "error": ""},
  // (K) Test_Modulo Quantity % Zero -> error
  {"expr": "modulo('4Ki', `0`)", "error": ""},
  // (K) Test_Modulo Quantity % Zero -> error
  {"expr": "modulo('4', `0`)", "error": ""},
  // (K) Test_Modulo Quantity % Zero -> error
  {"expr": "modulo('4', '0')", "error": ""},
  // (K) Test_Modulo Duration % Zero -> error
  {"expr": "modulo('4s', `0`)", "error": ""},
  // (K) Test_Round Scalar roundoff Quantity -> error
  {"expr": "round(`23`, '12Ki')", "error": ""},
  // (K) Test_Round Scalar roundoff Duration -> error
  {"expr": "round(`21`, '5s')", "error": ""},
  // (K) Test_Round Scalar roundoff Scalar -> Scalar
  {"expr": "round(`9.414675`, `2`)", "result": 9.41},
  // (K) Test_Round Scalar roundoff zero -> error
  {"expr": "round(`14.123`, `6`)", "result": 14.123},
  // (K) Test_Round Scalar roundoff Non int -> error
  {"expr": "round(`14`, `1.5`)", "error": ""},
  // (K) Test_Round Scalar roundoff negative int -> error
  {"expr": "round(`14`, `-2`)", "error": ""},
  // (K) Test_IsExternalURL
  {"expr": "is_external_url('http://localhost')", "result": false},
  // (K) Test_IsExternalURL
  {"expr": "is_external_url('http://127.0.0.1')", "result": false},
  // (K) Test_IsExternalURL
  {"expr": "is_external_url('http://172.16.1.1')", "result": false},
  // (K) Test_IsExternalURL
  {"expr": "is_external_url('http://10.1.1.1')", "result": false},
  // (K) Test_IsExternalURL
  {"expr": "is_external_url('http://google.com')", "result": true},
  // (K) Test_IsExternalURL
  {"expr": "is_external_url('http://245.48.83.160')", "result": true},
  // (K) Test_IsExternalURL
  {"expr": "is_external_url('http://[fd12:3456:789a:1::1]')", "result": false},
  // (K) Test_IsExternalURL
  {"expr": "is_external_url('http://[fdb7:d8fd:c4e4:5561::1]')", "result": false},
  // (K) Test_IsExternalURL
  {"expr": "is_external_url('http://[::1]')", "result": false},
  // (K) Test_IsExternalURL
  {"expr": "is_external_url('http://[2001:db8::ff00:42:8329]')", "result": true},
  // (K) Test_IsExternalURL
  {"expr": "is_external_url('http://www.google.com@192.168.1.3')", "result": false},
  // (K) Test_SHA256
  {"expr": "sha256('alertmanager-kube-prometheus-stack-alertmanager')", "result": "75c07bb807f2d80a85d34880b8af0c5f29f7c27577076ed5d0e4b427dee7dbcc"},
  // (K) Test_SHA1
  {"expr": "sha1('Alice & Bob')", "result": "e3ec484930685a61b0f824cd684a68699d2b98c1"},
  // (K) Test_MD5
  {"expr": "md5('Alice & Bob')", "result": "def42e1abd2462df1f9f0a4b3d488221"},
  // (K) Test_ToLower
  {"expr": "to_lower('123')", "result": "123"},
  // (K) Test_ToLower
  {"expr": "to_lower('a#%&123Bc')", "result": "a#%&123bc"},
  // (K) Test_CustomFunctions_ValidationErrors
  {"expr": "is_external_url(`123`)", "error": ""},
  // (K) Test_CustomFunctions_ValidationErrors
  {"expr": "base64_decode(`123`)", "error": ""},
  // (K) Test_CustomFunctions_ValidationErrors
  {"expr": "base64_encode(`123`)", "error": ""},
  // (K) Test_CustomFunctions_ValidationErrors
  {"expr": "sha256(`123`)", "error": ""},
  // (K) Test_CustomFunctions_ValidationErrors
  {"expr": "sha1(`123`)", "error": ""},
  // (K) Test_CustomFunctions_ValidationErrors
  {"expr": "md5(`123`)", "error": ""},
  // (K) Test_CustomFunctions_ValidationErrors
  {"expr": "pattern_match(`123`, 'foo')", "error": ""},
  // (K) Test_CustomFunctions_ValidationErrors
  {"expr": "pattern_match('foo', `[]`)", "error": ""},
  // (K) TestScalar_Multiply: a scalar times a boolean
  {"expr": "multiply(`123`, `true`)", "error": ""},
  // (K) TestParseArithemticOperands: a boolean on either side
  {"expr": "add(`true`, `1.0`)", "error": ""},
  {"expr": "add(`1.0`, `true`)", "error": ""},
  // (K) Test_jpfToUpper, Test_jpfToLower: a float argument (vectors.ts has the strings and `32`)
  {"expr": "to_upper(`32.0`)", "error": ""},
  {"expr": "to_lower(`32.0`)", "error": ""},
  // (K) Test_HasPrefix, Test_HasSuffix
  {"expr": "starts_with('Gophers', 'Go')", "result": true},
  {"expr": "ends_with('Amigo', 'go')", "result": true},
];
