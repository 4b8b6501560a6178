/**
 * Function vectors. Entries marked (K) are transcribed from Kyverno's own tests
 * (pkg/engine/jmespath/functions_test.go, arithmetic_test.go, time_test.go); the others are edge cases
 * derived from the Go behaviour the implementation follows (documented next to each group).
 */
import type { JsonValue } from '../../../src/json/index.js';

export interface Vector {
  expr: string;
  data?: JsonValue;
  result?: JsonValue;
  /** Substring of the expected error message ('' = any error). */
  error?: string;
}

const secret = { data: { example1: 'SGVsbG8sIHdvcmxkIQ==', example2: 'Rm9vQmFy' } };
const field = { spec: { field: 'Hello world, helworldlo' } };
const labels = { metadata: { labels: { app: 'test-app', 'controller-name': 'test-controller' } } };

export const stringVectors: Vector[] = [
  // (K) Test_Compare, Test_jpfCompare
  { expr: "compare('a', 'a')", result: 0 },
  { expr: "compare('a', 'b')", result: -1 },
  { expr: "compare('b', 'a')", result: 1 },
  { expr: "compare(`1`, 'b')", error: 'Invalid type for: 1' },
  // Go compares bytes of UTF-8, i.e. code points: U+1F600 sorts after U+FFFD (UTF-16 would say before).
  { expr: "compare('😀', '\uFFFD')", result: 1 },
  // (K) Test_EqualFold
  { expr: "equal_fold('Go', 'go')", result: true },
  { expr: "equal_fold('a', 'b')", result: false },
  { expr: "equal_fold('1', 'b')", result: false },
  { expr: "equal_fold('ÄÖ', 'äö')", result: true },
  // (K) Test_Replace, Test_ReplaceAll, Test_jpfReplace
  { expr: "replace('Lorem ipsum dolor sit amet', 'ipsum', 'muspi', `-1`)", result: 'Lorem muspi dolor sit amet' },
  { expr: "replace('Lorem ipsum ipsum ipsum dolor sit amet', 'ipsum', 'muspi', `-1`)", result: 'Lorem muspi muspi muspi dolor sit amet' },
  { expr: "replace('Lorem ipsum ipsum ipsum dolor sit amet', 'ipsum', 'muspi', `1`)", result: 'Lorem muspi ipsum ipsum dolor sit amet' },
  { expr: "replace(`1`, 'ipsum', 'muspi', `1`)", error: 'Invalid type' },
  { expr: "replace('a', 'ipsum', 'muspi', `true`)", error: 'Invalid type' },
  // strings.Replace: an empty `old` inserts before every rune (and at the end), n counts insertions
  { expr: "replace('abc', '', '-', `-1`)", result: '-a-b-c-' },
  { expr: "replace('abc', '', '-', `2`)", result: '-a-bc' },
  { expr: "replace('aaa', 'a', 'b', `2.9`)", result: 'bba' },
  { expr: "replace('aaa', 'a', 'b', `0`)", result: 'aaa' },
  { expr: "replace_all('Lorem ipsum dolor sit amet', 'ipsum', 'muspi')", result: 'Lorem muspi dolor sit amet' },
  { expr: "replace_all('Lorem ipsum ipsum ipsum dolor sit amet', 'ipsum', 'muspi')", result: 'Lorem muspi muspi muspi dolor sit amet' },
  { expr: "replace_all('a', 'ipsum', `false`)", error: 'Invalid type' },
  // (K) Test_ToUpper / Test_ToLower
  { expr: "to_upper('abc')", result: 'ABC' },
  { expr: "to_upper('123')", result: '123' },
  { expr: "to_upper('a#%&123Bc')", result: 'A#%&123BC' },
  { expr: 'to_upper(`32`)', error: 'Invalid type' },
  { expr: "to_lower('ABC')", result: 'abc' },
  { expr: "to_lower('A#%&123BC')", result: 'a#%&123bc' },
  // Go maps rune by rune: ß has no single-rune upper case, final sigma is not special
  { expr: "to_upper('straße')", result: 'STRAßE' },
  { expr: "to_lower('ΟΔΟΣ')", result: 'οδοσ' },
  // (K) Test_Trim, Test_TrimPrefix
  { expr: "trim('¡¡¡Hello, Gophers!!!', '!¡')", result: 'Hello, Gophers' },
  { expr: "trim('xxhixx', '')", result: 'xxhixx' },
  { expr: "trim_prefix('¡¡¡Hello, Gophers!!!', '¡¡¡Hello, ')", result: 'Gophers!!!' },
  { expr: "trim_prefix('¡¡¡Hello, Gophers!!!', '¡¡¡Hola, ')", result: '¡¡¡Hello, Gophers!!!' },
  { expr: "trim_prefix(`1`, 'x')", error: 'Invalid type' },
  // (K) Test_Split, HasPrefix, HasSuffix
  { expr: "split('Hello, Gophers', ', ')", result: ['Hello', 'Gophers'] },
  { expr: "split('a😀b', '')", result: ['a', '😀', 'b'] },
  { expr: "split('', ',')", result: [''] },
  { expr: "starts_with('Gophers', 'Go')", result: true },
  { expr: "ends_with('Amigo', 'go')", result: true },
  // (K) Test_JpToBoolean
  { expr: "to_boolean('true')", result: true },
  { expr: "to_boolean('TRue')", result: true },
  { expr: "to_boolean('FaLse')", result: false },
  { expr: "to_boolean('FaLsee')", error: "JMESPath function 'to_boolean': lowercase argument must be 'true' or 'false' (provided: 'FaLsee')" },
  { expr: "to_boolean('foo')", error: 'lowercase argument' },
  { expr: 'to_boolean(`1`)', error: 'Invalid type' },
  { expr: 'to_boolean(`null`)', error: 'Invalid type' },
  // (K) Test_PathCanonicalize (Linux)
  { expr: "path_canonicalize('///')", result: '/' },
  { expr: "path_canonicalize('///var/run/containerd/containerd.sock')", result: '/var/run/containerd/containerd.sock' },
  { expr: "path_canonicalize('/var/run///containerd/containerd.sock')", result: '/var/run/containerd/containerd.sock' },
  { expr: "path_canonicalize('/var/run///containerd////')", result: '/var/run/containerd' },
  { expr: "path_canonicalize('/run///')", result: '/run' },
  { expr: "path_canonicalize('/run/../etc')", result: '/etc' },
  { expr: "path_canonicalize('///etc*')", result: '/etc*' },
  { expr: "path_canonicalize('/../../')", result: '/' },
  { expr: "path_canonicalize('a/../../b/./c')", result: '../b/c' },
  { expr: "path_canonicalize('')", result: '' },
  // (K) Test_Truncate
  { expr: "truncate('Lorem ipsum dolor sit amet', `5`)", result: 'Lorem' },
  { expr: "truncate('Lorem ipsum ipsum ipsum dolor sit amet', `11`)", result: 'Lorem ipsum' },
  { expr: "truncate('Lorem ipsum ipsum ipsum dolor sit amet', `40`)", result: 'Lorem ipsum ipsum ipsum dolor sit amet' },
  { expr: "truncate('Lorem ipsum', `2.6`)", result: 'Lo' },
  { expr: "truncate('Lorem ipsum', `0`)", result: '' },
  { expr: "truncate('Lorem ipsum', `-1`)", result: '' },
  { expr: "truncate('😀😀😀', `2`)", result: '😀😀' },
];

export const regexVectors: Vector[] = [
  // (K) Test_RegexMatch, Test_RegexMatchWithNumber
  { expr: "regex_match('12.*', foo)", data: { foo: "hgf'b1a2r'b12g" }, result: true },
  { expr: "regex_match('12.*', abs(foo))", data: { foo: -12.0 }, result: true },
  { expr: "regex_match('^abc$', 'xabc')", result: false },
  { expr: "regex_match('a(b', 'ab')", error: 'error parsing regexp: missing closing ): `a(b`' },
  // (K) Test_PatternMatch, Test_PatternMatchWithNumber
  { expr: "pattern_match('prefix-*', foo)", data: { foo: 'prefix-foo' }, result: true },
  { expr: "pattern_match('12*', abs(foo))", data: { foo: -12.0 }, result: true },
  { expr: "pattern_match('a?c', 'abc')", result: true },
  { expr: "pattern_match('a?c', 'ac')", result: false },
  { expr: "pattern_match('*.example.com', 'api.example.com')", result: true },
  { expr: "pattern_match('*.example.com', 'example.com')", result: false },
  { expr: "pattern_match('', '')", result: true },
  // (K) Test_RegexReplaceAll: ${2} names a group that does not exist, so it expands to nothing
  { expr: "regex_replace_all('([Hh]e|G)l', spec.field, '${2}G')", data: field, result: 'Glo world, Gworldlo' },
  // (K) Test_RegexReplaceAllLiteral
  { expr: "regex_replace_all_literal('[Hh]el?', spec.field, 'G')", data: field, result: 'Glo world, Gworldlo' },
  // Go template rules: $1x is the (missing) group "1x"; ${1}x is group 1 then "x"; $$ is a literal $
  { expr: "regex_replace_all('(a)(b)', 'ab', '$1x')", result: '' },
  { expr: "regex_replace_all('(a)(b)', 'ab', '${1}x')", result: 'ax' },
  { expr: "regex_replace_all('(a)(b)', 'ab', '$2$1')", result: 'ba' },
  { expr: "regex_replace_all('(?P<first>a)b', 'ab', '<$first>')", result: '<a>' },
  { expr: "regex_replace_all('a', 'aa', '$$')", result: '$$' },
  { expr: "regex_replace_all('a', 'a', '$')", result: '$' },
  { expr: "regex_replace_all('a', 'a', '${1')", result: '${1' },
  { expr: "regex_replace_all_literal('(a)', 'a', '$1')", result: '$1' },
  // empty matches: Go does not replace an empty match right after a previous match
  { expr: "regex_replace_all('a*', 'baaac', '-')", result: '-b-c-' },
  { expr: "regex_replace_all('', 'abc', '-')", result: '-a-b-c-' },
  // numbers are formatted with float32 precision (strconv.FormatFloat(f, 'f', -1, 32))
  { expr: "regex_replace_all('^', `16777217`, 'x')", result: 'x16777216' },
  { expr: "regex_replace_all('\\.', `1.5`, ',')", result: '1,5' },
  { expr: "regex_replace_all('x', 'x', `0.1`)", result: '0.1' },
  { expr: "regex_replace_all('x', 'x', `1e20`)", result: '100000000000000000000' },
  { expr: "regex_replace_all('(', 'x', 'y')", error: "JMESPath function 'regex_replace_all': error parsing regexp" },
  { expr: "regex_replace_all('x', `true`, 'y')", error: 'Invalid type' },
];

export const objectVectors: Vector[] = [
  // (K) Test_LabelMatch
  { expr: 'label_match(`{ "app": "test-app" }`, metadata.labels)', data: labels, result: true },
  { expr: 'label_match(`{ "app": "test-app", "controller-name": "test-controller" }`, metadata.labels)', data: labels, result: true },
  { expr: 'label_match(`{ "app": "test-app2" }`, metadata.labels)', data: labels, result: false },
  { expr: 'label_match(`{ "app.kubernetes.io/name": "test-app" }`, metadata.labels)', data: labels, result: false },
  { expr: 'label_match(`{}`, metadata.labels)', data: labels, result: true },
  { expr: 'label_match(`{"a": 1}`, `{"a": 1.0}`)', result: true },
  { expr: 'label_match(`{"a": "1"}`, `{"a": 1}`)', result: false },
  // (K) Test_LabelMatch case 4: values compare deeply (reflect.DeepEqual), maps and lists included
  {
    expr: 'label_match(`{ "app": "test-app", "annotations": { "test": "test" } }`, metadata.labels)',
    data: { metadata: { labels: { app: 'test-app', annotations: { test: 'test' }, ownerReferences: [{ name: 'test' }] } } },
    result: true,
  },
  { expr: 'label_match(`{"a": {"b": [1, {"c": true}]}}`, `{"a": {"b": [1.0, {"c": true}]}, "x": 1}`)', result: true },
  { expr: 'label_match(`{"a": {"b": 1}}`, `{"a": {"b": 1, "c": 2}}`)', result: false },
  { expr: 'label_match(`{"a": [1, 2]}`, `{"a": [2, 1]}`)', result: false },
  // (K) Test_Lookup
  { expr: 'lookup(`{}`, `"key1"`)', result: null },
  { expr: 'lookup(`{"key1": "value1"}`, `"key2"`)', result: null },
  { expr: 'lookup(`{"key1": "value1"}`, `"key1"`)', result: 'value1' },
  { expr: 'lookup(`{"": "value1"}`, `""`)', result: 'value1' },
  { expr: 'lookup(`{"k": 12.34}`, `"k"`)', result: 12.34 },
  { expr: 'lookup(`{"k": false}`, `"k"`)', result: false },
  { expr: 'lookup(`{"k":  [7, "x", true] }`, `"k"`)', result: [7, 'x', true] },
  { expr: 'lookup(`{"k": {"key1":true}}`, `"k"`)', result: { key1: true } },
  { expr: 'lookup(`[]`, `0`)', result: null },
  { expr: 'lookup(`["item0"]`, `-1`)', result: null },
  { expr: 'lookup(`["item0"]`, `1`)', result: null },
  { expr: 'lookup(`["item0"]`, `0`)', result: 'item0' },
  { expr: 'lookup(`["item0", "item1", "item2", "item3"]`, `2`)', result: 'item2' },
  { expr: 'lookup(`["item0", "item1"]`, `0.99999999999999999999999999999999999999999999`)', result: 'item1' },
  { expr: 'lookup(`[{"key1":true}]`, `0`)', result: { key1: true } },
  { expr: 'lookup(`{"toString": 1}`, `"constructor"`)', result: null },
  // (K) Test_Lookup_InvalidArgs
  { expr: 'lookup(`{}`, `123`)', error: 'argument #2 is not of type String' },
  { expr: 'lookup(`[]`, `"abc"`)', error: 'argument #2 is not of type Number' },
  { expr: 'lookup(`[]`, `1.5`)', error: "JMESPath function 'lookup': argument #2: expected an integer number but got: 1.5" },
  // (K) Test_intNumber_Error through lookup and round: outside int64 is refused too, printed as %g
  { expr: 'lookup(`["a"]`, `1e300`)', error: "JMESPath function 'lookup': argument #2: number is outside the range of integer numbers: 1e+300" },
  { expr: 'lookup(`["a"]`, `1.7976931348623157e308`)', error: 'number is outside the range of integer numbers: 1.7976931348623157e+308' },
  { expr: 'lookup(`["a"]`, `-9223372036854775808`)', result: null },
  { expr: 'round(`1`, `1e300`)', error: "JMESPath function 'round': Non-integer argument(s) passed for round off" },
  // (K) Test_Items (objects iterate keys sorted)
  { expr: 'items(`{ "key1": "value1" }`, `"key"`, `"value"`)', result: [{ key: 'key1', value: 'value1' }] },
  {
    expr: 'items(`{ "key2": "value2", "key1": "value1" }`, `"myKey"`, `"myValue"`)',
    result: [
      { myKey: 'key1', myValue: 'value1' },
      { myKey: 'key2', myValue: 'value2' },
    ],
  },
  {
    expr: 'items(`["A", "B", "C"]`, `"myKey"`, `"myValue"`)',
    result: [
      { myKey: 0, myValue: 'A' },
      { myKey: 1, myValue: 'B' },
      { myKey: 2, myValue: 'C' },
    ],
  },
  { expr: "items('x', 'k', 'v')", error: 'Invalid type' },
  // (K) Test_ObjectFromLists
  { expr: 'object_from_lists(`["key1", "key2"]`, `["1", "2"]`)', result: { key1: '1', key2: '2' } },
  { expr: 'object_from_lists(`["key1", "key2"]`, `[1, "2"]`)', result: { key1: 1, key2: '2' } },
  { expr: 'object_from_lists(`["key1", "key2"]`, `[1]`)', result: { key1: 1, key2: null } },
  { expr: 'object_from_lists(`[1.5, true]`, `[1, 2]`)', result: { '1.5': 1, true: 2 } },
  { expr: 'object_from_lists(`[[1]]`, `[1]`)', error: 'argument #1 is not of type StringArray' },
];

export const arithmeticVectors: Vector[] = [
  // (K) Test_Add
  { expr: 'add(`12`, `13`)', result: 25 },
  { expr: "add('12', '13s')", error: 'Types mismatch' },
  { expr: "add(`12`, '13Ki')", error: "JMESPath function 'add': Types mismatch" },
  { expr: "add(`12`, '13')", error: '' },
  { expr: "add('12Ki', '13Ki')", result: '25Ki' },
  { expr: "add('12Ki', '13')", result: '12301' },
  { expr: "add('12Ki', '13s')", error: '' },
  { expr: "add('12Ki', `13`)", error: '' },
  { expr: "add('12s', '13s')", result: '25s' },
  { expr: "add('12s', `13`)", error: '' },
  { expr: "add('12s', '13Ki')", error: '' },
  { expr: "add('12s', '13')", error: '' },
  // "30m" is 30 milli-units, a quantity, so it cannot be added to a duration
  { expr: "add('1h', '30m')", error: 'Types mismatch' },
  { expr: "add('1h', '30m0s')", result: '1h30m0s' },
  { expr: "add('1.5', '500m')", result: '2' },
  { expr: "add('0', '1Ki')", result: '1Ki' },
  { expr: "add('100Mi', '100M')", result: '204857600' },
  // Kyverno's parseArithemticOperand: formatError(genericError, operator, "invalid operand")
  { expr: "add('x', `1`)", error: "JMESPath function 'add': invalid operand" },
  { expr: 'add(`true`, `1`)', error: 'invalid operand' },
  { expr: "subtract(`1`, 'x')", error: "JMESPath function 'subtract': invalid operand" },
  // (K) Test_Sum
  { expr: 'sum(`[]`)', error: "JMESPath function 'sum': at least one element in the array is required" },
  { expr: 'sum([`12`])', result: 12 },
  { expr: 'sum([`12`, `13`, `1`, `4`])', result: 30 },
  { expr: "sum(['12', '13s'])", error: '' },
  { expr: "sum([`12`, '13Ki'])", error: "JMESPath function 'sum': Types mismatch" },
  { expr: "sum(['12Ki'])", result: '12Ki' },
  { expr: "sum(['12Ki', '13Ki', '1Ki', '4Ki'])", result: '30Ki' },
  { expr: "sum(['12Ki', '13'])", result: '12301' },
  { expr: "sum(['12s', '13s', '1s', '4s'])", result: '30s' },
  { expr: "sum(['12s', `13`])", error: '' },
  { expr: "sum('12s')", error: 'Invalid type' },
  // (K) Test_Subtract
  { expr: 'subtract(`12`, `13`)', result: -1 },
  { expr: "subtract('12Ki', '13Ki')", result: '-1Ki' },
  { expr: "subtract('12Ki', '13')", result: '12275' },
  { expr: "subtract('12s', '13s')", result: '-1s' },
  { expr: "subtract('12s', '13Ki')", error: '' },
  { expr: "subtract('12', '13s')", error: '' },
  // (K) Test_Multiply
  { expr: "multiply('12Ki', `2`)", result: '24Ki' },
  { expr: "multiply('12Ki', '12Ki')", error: '' },
  { expr: "multiply('12Ki', '12')", error: '' },
  { expr: "multiply('12Ki', '12s')", error: '' },
  { expr: "multiply('12s', `2`)", result: '24s' },
  { expr: "multiply('12s', '12s')", error: '' },
  { expr: 'multiply(`2.5`, `2.5`)', result: 6.25 },
  { expr: "multiply(`2.5`, '12Ki')", result: '30Ki' },
  { expr: "multiply(`2.5`, '12')", result: '30' },
  { expr: "multiply(`2.5`, '40s')", result: '1m40s' },
  { expr: "multiply('100m', `3`)", result: '300m' },
  { expr: "multiply('1Ki', `0.5`)", result: '512' },
  { expr: "multiply('1', `0.001`)", result: '1m' },
  // (K) Test_Divide
  { expr: "divide('256M', '256M')", result: 1 },
  { expr: "divide('512M', '256M')", result: 2 },
  { expr: "divide('8', '3')", result: 8 / 3 },
  { expr: "divide('128M', '256M')", result: 0.5 },
  { expr: "divide('12Ki', `3`)", result: '4Ki' },
  { expr: "divide('12Ki', '2Ki')", result: 6 },
  { expr: "divide('12Ki', '200')", result: 61.44 },
  { expr: "divide('12Ki', '2s')", error: '' },
  { expr: "divide('12s', `3`)", result: '4s' },
  { expr: "divide('12s', '5s')", result: 2.4 },
  { expr: "divide('12s', '4Ki')", error: '' },
  { expr: 'divide(`14`, `3`)', result: 4.666666666666667 },
  { expr: "divide(`14`, '5s')", error: '' },
  { expr: "divide(`14`, '5')", error: '' },
  { expr: 'divide(`14`, `0`)', error: "JMESPath function 'divide': Zero divisor passed" },
  { expr: "divide('4Ki', `0`)", error: 'Zero divisor passed' },
  { expr: "divide('4Ki', '0Ki')", error: 'Zero divisor passed' },
  { expr: "divide('4', '0')", error: 'Zero divisor passed' },
  { expr: "divide('4s', `0`)", error: 'Zero divisor passed' },
  { expr: "divide('4s', '0s')", error: 'Zero divisor passed' },
  // quantity ÷ scalar rounds down at the larger of the two representation scales
  { expr: "divide('1', `3`)", result: '0' },
  { expr: "divide('1.5', `2`)", result: '700m' },
  { expr: "divide('1k', `3`)", result: '333' },
  // (K) Test_Modulo
  { expr: "modulo('12', '13s')", error: '' },
  { expr: "modulo('12Ki', `13`)", error: '' },
  { expr: "modulo('12Ki', '5Ki')", result: '2Ki' },
  { expr: "modulo('13s', '12')", error: '' },
  { expr: "modulo('13s', '2s')", result: '1s' },
  { expr: "modulo('13s', `2`)", error: '' },
  { expr: "modulo(`13`, '12')", error: '' },
  { expr: 'modulo(`13`, `5`)', result: 3 },
  { expr: 'modulo(`-13`, `5`)', result: -3 },
  { expr: 'modulo(`14`, `0`)', error: "JMESPath function 'modulo': Zero divisor passed" },
  { expr: "modulo('4Ki', '0Ki')", error: 'Zero divisor passed' },
  { expr: "modulo('4s', '0s')", error: 'Zero divisor passed' },
  { expr: "modulo('4', '1.5')", error: "JMESPath function 'modulo': Non-integer argument(s) passed for modulo" },
  { expr: "modulo('4.5', '1')", error: 'Non-integer' },
  { expr: 'modulo(`14`, `1.5`)', error: 'Non-integer' },
  { expr: 'modulo(`14.5`, `2`)', error: 'Non-integer' },
  // round: math.Round (half away from zero) after scaling
  { expr: 'round(`3.14159`, `2`)', result: 3.14 },
  { expr: 'round(`2.5`, `0`)', result: 3 },
  { expr: 'round(`-2.5`, `0`)', result: -3 },
  { expr: 'round(`1.005`, `2`)', result: 1 },
  { expr: 'round(`1`, `1.5`)', error: "JMESPath function 'round': Non-integer argument(s) passed for round off" },
  { expr: 'round(`1`, `-1`)', error: 'out of bounds' },
  // durations print like Go's Duration.String
  { expr: "add('1.5h', '0s')", result: '1h30m0s' },
  { expr: "add('1us', '500ns')", result: '1.5µs' },
  { expr: "add('1ms', '1ns')", result: '1.000001ms' },
  { expr: "subtract('1s', '1s')", result: '0s' },
  { expr: "add('2562047h47m16.854775807s', '1ns')", result: '-2562047h47m16.854775808s' },
  { expr: "add('1h', '1x')", error: 'invalid operand' },
];

export const encodingVectors: Vector[] = [
  // (K) Test_Base64Decode, Test_Base64Encode, Test_Base64Decode_Secret
  { expr: "base64_decode('SGVsbG8sIHdvcmxkIQ==')", result: 'Hello, world!' },
  { expr: "base64_encode('Hello, world!')", result: 'SGVsbG8sIHdvcmxkIQ==' },
  { expr: 'base64_decode(data.example1)', data: secret, result: 'Hello, world!' },
  { expr: 'base64_decode(data.example2)', data: secret, result: 'FooBar' },
  { expr: "base64_encode('é😀')", result: 'w6nwn5iA' },
  { expr: "base64_decode('w6nwn5iA')", result: 'é😀' },
  // Decoded bytes that are not UTF-8 stay the bytes Go keeps in its string: hashing or encoding them
  // again sees the original data, and each counts as one rune (utf8.RuneCountInString).
  { expr: "base64_encode(base64_decode('gICA'))", result: 'gICA' },
  { expr: "base64_encode(base64_decode('8J+Y'))", result: '8J+Y' }, // a 4-byte sequence cut short
  { expr: "base64_encode(base64_decode('7aCA'))", result: '7aCA' }, // an encoded surrogate, which Go rejects
  { expr: "base64_encode(base64_decode('wIA='))", result: 'wIA=' }, // an overlong encoding
  { expr: "sha256(base64_decode('/w=='))", result: 'a8100ae6aa1940d0b663bb31cd466142ebbdbd5187131b92d93818987832eb89' },
  { expr: "md5(base64_decode('gICA'))", result: '2a5bd8e667b4a7bfc0e930779cff593d' },
  { expr: "length(base64_decode('8J+Y'))", result: 3 },
  { expr: "length(base64_decode('4oI='))", result: 2 },
  { expr: "base64_encode(base64_decode('8J+YgA=='))", result: '8J+YgA==' },
  // encoding/json decodes the escape of a lone surrogate as U+FFFD (a pair is one character)
  { expr: '`"\\ud83d"`', result: '\ufffd' },
  { expr: '`"\\ud83d\\ude00"`', result: '😀' },
  { expr: '`{"\\udc80": "\\udc81x"}`', result: { '\ufffd': '\ufffdx' } },
  { expr: 'base64_encode(`"\\udc80"`)', result: '77+9' },
  { expr: '"\\ud800"', data: { '\ufffd': 1 }, result: 1 }, // a quoted identifier is decoded the same way
  { expr: 'parse_json(`"\\"\\\\ud800\\""`)', result: '\ufffd' },
  { expr: "base64_decode('SGVsbG8')", error: 'illegal base64 data at input byte 4' },
  { expr: "base64_decode('S')", error: 'illegal base64 data at input byte 0' },
  { expr: "base64_decode('SGV%bG8=')", error: 'illegal base64 data at input byte 3' },
  { expr: "base64_decode('SGVs\nbG8=')", result: 'Hello' },
  { expr: "base64_decode('')", result: '' },
  // (K) Test_ParseJsonSerde: to_string(parse_json(x)) == x
  { expr: "to_string(parse_json('{\"a\":\"b\"}'))", result: '{"a":"b"}' },
  { expr: "to_string(parse_json('true'))", result: 'true' },
  { expr: "to_string(parse_json('[1,2,3,{\"a\":\"b\"}]'))", result: '[1,2,3,{"a":"b"}]' },
  { expr: "to_string(parse_json('null'))", result: 'null' },
  { expr: "to_string(parse_json('[]'))", result: '[]' },
  { expr: "to_string(parse_json('{}'))", result: '{}' },
  { expr: "to_string(parse_json('0'))", result: '0' },
  { expr: "to_string(parse_json('1.2'))", result: '1.2' },
  { expr: "to_string(parse_json('[1.2,true,{\"a\":{\"a\":\"b\"}}]'))", result: '[1.2,true,{"a":{"a":"b"}}]' },
  // (K) Test_ParseJsonComplex
  { expr: "parse_json('{\"a\": \"b\"}').a", result: 'b' },
  { expr: "parse_json('{\"a\": [1, 2, 3, 4]}').a[0]", result: 1 },
  { expr: "parse_json('[1, 2, {\"a\": {\"b\": {\"c\": [1, 2]}}}]')[2].a.b.c[1]", result: 2 },
  { expr: "parse_json('{')", error: '' },
  // encoding/json's own messages, which Kyverno returns as parse_json's error (not V8's wording)
  { expr: "parse_json('{')", error: 'unexpected end of JSON input' },
  { expr: "parse_json('')", error: 'unexpected end of JSON input' },
  { expr: "parse_json('1 2')", error: "invalid character '2' after top-level value" },
  { expr: "parse_json('[1,]')", error: "invalid character ']' looking for beginning of value" },
  { expr: "parse_json('{\"a\" 1}')", error: "invalid character '1' after object key" },
  // At the end Go's scanner reads one more space: inside a literal, number or escape that is the error.
  { expr: "parse_json('tru')", error: "invalid character ' ' in literal true (expecting 'e')" },
  { expr: "parse_json('-')", error: "invalid character ' ' in numeric literal" },
  { expr: "parse_json('1.')", error: "invalid character ' ' after decimal point in numeric literal" },
  { expr: "parse_json('1e+')", error: "invalid character ' ' in exponent of numeric literal" },
  { expr: 'parse_json(`"\\"\\\\u1"`)', error: "invalid character ' ' in \\u hexadecimal character escape" },
  { expr: "parse_json('[1')", error: 'unexpected end of JSON input' },
  { expr: '`1.`', error: "invalid character ' ' after decimal point in numeric literal" },
  { expr: "parse_json('nul!')", error: "invalid character '!' in literal null (expecting 'l')" },
  // go-jmespath's parser returns json.Unmarshal's error for a bad JSON literal
  { expr: '`[1,]`', error: "invalid character ']' looking for beginning of value" },
  // (K) Test_ParseYAML
  { expr: "parse_yaml('a: b')", result: { a: 'b' } },
  { expr: "parse_yaml('\n- 1\n- 2\n- 3\n- a: b')", result: [1, 2, 3, { a: 'b' }] },
  { expr: "parse_yaml('\nspec:\n  test: 1\n  test2:\n    - 2\n    - 3\n')", result: { spec: { test: 1, test2: [2, 3] } } },
  { expr: "parse_yaml('\nbar: >\n  this is not a normal string it\n  spans more than\n  one line\n  see?')", result: { bar: 'this is not a normal string it spans more than one line see?' } },
  { expr: "parse_yaml('\n---\nfoo: ~\nbar: null\n')", result: { foo: null, bar: null } },
  // YAML 1.1 scalars as go-yaml v2 reads them; timestamps and base-60 stay strings
  { expr: "parse_yaml('a: yes\nb: off\nc: 0777\nd: 2001-12-14\ne: 1:20\nf: \"yes\"')", result: { a: true, b: false, c: 511, d: '2001-12-14', e: '1:20', f: 'yes' } },
  { expr: "parse_yaml('a: [')", error: '' },
  // hashes: lowercase hex of the UTF-8 bytes
  { expr: "sha256('')", result: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' },
  { expr: "sha256('abc')", result: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' },
  { expr: "sha256('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')", result: '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1' },
  { expr: "sha1('abc')", result: 'a9993e364706816aba3e25717850c26c9cd0d89d' },
  { expr: "sha1('')", result: 'da39a3ee5e6b4b0d3255bfef95601890afd80709' },
  { expr: "md5('')", result: 'd41d8cd98f00b204e9800998ecf8427e' },
  { expr: "md5('The quick brown fox jumps over the lazy dog')", result: '9e107d9d372bb6826bd81d3542a419d6' },
  { expr: 'sha256(`1`)', error: 'Invalid type' },
];

export const timeVectors: Vector[] = [
  // (K) Test_TimeSince
  { expr: "time_since('', '2021-01-02T15:04:05-07:00', '2021-01-10T03:14:05-07:00')", result: '180h10m0s' },
  { expr: "time_since('Mon Jan _2 15:04:05 MST 2006', 'Mon Jan 02 15:04:05 MST 2021', 'Mon Jan 10 03:14:16 MST 2021')", result: '180h10m11s' },
  // (K) Test_TimeToCron
  { expr: "time_to_cron('2023-02-02T15:04:05Z')", result: '4 15 2 2 4' },
  { expr: "time_to_cron(time_utc('2023-02-02T15:04:05-07:00'))", result: '4 22 2 2 4' },
  // (K) Test_TimeAdd
  { expr: "time_add('2021-01-02T15:04:05-07:00', '3h')", result: '2021-01-02T18:04:05-07:00' },
  { expr: "time_add(time_parse('Mon Jan 02 15:04:05 MST 2006', 'Sat Jan 02 15:04:05 MST 2021'), '5h30m40s')", result: '2021-01-02T20:34:45Z' },
  // (K) Test_TimeParse
  { expr: "time_parse('2006-01-02T15:04:05Z07:00', '2021-01-02T15:04:05-07:00')", result: '2021-01-02T15:04:05-07:00' },
  { expr: "time_parse('Mon Jan 02 15:04:05 MST 2006', 'Sat Jan 02 15:04:05 MST 2021')", result: '2021-01-02T15:04:05Z' },
  { expr: "time_add(time_parse('Mon Jan 02 15:04:05 -0700 2006', 'Sat Jan 02 15:04:05 -0700 2021'), '5h30m40s')", result: '2021-01-02T20:34:45-07:00' },
  { expr: "time_parse('Mon Jan 02 15:04:05 -0700 2006', 'Sat Jan 02 15:04:05 -0700 2021')", result: '2021-01-02T15:04:05-07:00' },
  { expr: "time_parse('1702691171', '1702691171')", result: '2023-12-16T01:46:11Z' },
  // (K) Test_TimeUtc, Test_TimeDiff
  { expr: "time_utc('2023-02-02T15:04:05Z')", result: '2023-02-02T15:04:05Z' },
  { expr: "time_utc('2023-02-02T15:04:05-07:00')", result: '2023-02-02T22:04:05Z' },
  { expr: "time_diff('2021-01-02T15:04:05-07:00', '2021-01-10T03:14:05-07:00')", result: '180h10m0s' },
  // (K) Test_jpTimeBefore / After / Between
  { expr: "time_before('2021-01-02T15:04:05-07:00', '2021-01-02T16:04:05-07:00')", result: true },
  { expr: "time_before('2021-01-02T15:04:05-07:00', '2021-01-02T15:04:05-07:00')", result: false },
  { expr: "time_before('2021-01-02T16:04:05-07:00', '2021-01-02T15:04:05-07:00')", result: false },
  { expr: "time_before(`1`, '2021-01-02T15:04:05-07:00')", error: 'Invalid type' },
  { expr: "time_after('2021-01-02T16:04:05-07:00', '2021-01-02T15:04:05-07:00')", result: true },
  { expr: "time_after('2021-01-02T15:04:05-07:00', '2021-01-02T15:04:05-07:00')", result: false },
  { expr: "time_between('2021-01-02T17:04:05-07:00', '2021-01-02T15:04:05-07:00', '2021-01-02T18:04:05-07:00')", result: true },
  { expr: "time_between('2021-01-02T15:04:05-07:00', '2021-01-02T15:04:05-07:00', '2021-01-02T18:04:05-07:00')", result: false },
  { expr: "time_between('2021-01-02T18:04:05-07:00', '2021-01-02T15:04:05-07:00', '2021-01-02T18:04:05-07:00')", result: false },
  // (K) getTimeArg / getDurationArg errors
  { expr: "time_utc('')", error: 'parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"' },
  { expr: "time_add('2021-01-02T15:04:05Z', '')", error: 'time: invalid duration ""' },
  { expr: "time_add('2021-01-02T15:04:05Z', '3d')", error: 'time: unknown unit "d" in duration "3d"' },
  { expr: "time_add('2021-01-02T15:04:05Z', '3')", error: 'time: missing unit in duration "3"' },
  // Go layouts and parsing details
  { expr: "time_parse('2006-01-02', '2024-02-29')", result: '2024-02-29T00:00:00Z' },
  { expr: "time_parse('2006-01-02', '2023-02-29')", error: 'parsing time "2023-02-29": day out of range' },
  { expr: "time_parse('2006-01-02 15:04', '2024-01-02 25:00')", error: 'hour out of range' },
  { expr: "time_parse('Jan 2, 2006 at 3:04pm (MST)', 'Feb 3, 2013 at 7:54pm (PST)')", result: '2013-02-03T19:54:00Z' },
  { expr: "time_parse('02/01/06 15:04:05.000 -0700', '25/12/21 10:30:00.123 +0530')", result: '2021-12-25T10:30:00+05:30' },
  { expr: "time_parse('2006-01-02T15:04:05Z07:00', '2021-01-02T15:04:05.999999999Z')", result: '2021-01-02T15:04:05Z' },
  { expr: "time_parse('2006-01-02', '2024-01-02x')", error: 'extra text: "x"' },
  { expr: "time_parse('1', '1700000000')", result: '2023-11-14T22:13:20Z' },
  { expr: "time_parse('0', '-1')", result: '1969-12-31T23:59:59Z' },
  { expr: "time_parse('1', 'abc')", error: 'strconv.ParseInt: parsing "abc": invalid syntax' },
  { expr: "time_truncate('2023-02-02T15:04:05Z', '1h')", result: '2023-02-02T15:00:00Z' },
  // Truncate works on the absolute time, not on the wall clock of the offset
  { expr: "time_truncate('2023-02-02T15:04:05+05:30', '1h')", result: '2023-02-02T14:30:00+05:30' },
  { expr: "time_truncate('2023-02-02T15:04:05Z', '24h')", result: '2023-02-02T00:00:00Z' },
  { expr: "time_truncate('2023-02-02T15:04:05Z', '-1h')", result: '2023-02-02T15:04:05Z' },
  { expr: "time_diff('2021-01-02T15:04:05Z', '2021-01-02T15:04:04.5Z')", result: '-500ms' },
  { expr: "time_since('', '2024-01-01T00:00:00Z', '')", result: '1h0m0s' }, // now = 2024-01-01T01:00:00Z
  { expr: 'time_now()', result: '2024-01-01T01:00:00Z' },
  { expr: 'time_now_utc()', result: '2024-01-01T01:00:00Z' },
];

export const miscVectors: Vector[] = [
  // (K) Test_SemverCompare
  { expr: "semver_compare('4.1.3','>=4.1.x')", result: true },
  { expr: "semver_compare('4.1.3','!4.x.x')", result: false },
  { expr: "semver_compare('1.8.6','>1.0.0 <2.0.0')", result: true },
  { expr: "semver_compare('2.1.5','<2.0.0 || >=3.0.0')", result: false },
  { expr: "semver_compare('1.2.3-beta.1','<1.2.3')", result: true },
  { expr: "semver_compare('1.2.3-beta.11','>1.2.3-beta.2')", result: true },
  { expr: "semver_compare('1.2.9','1.2.x')", result: true },
  { expr: "semver_compare('1.3.0','<=1.2.x')", result: false },
  { expr: "semver_compare('1.2.3','>= 1.2.0')", result: true },
  { expr: "semver_compare('v1.2.3','<0.0.1')", result: true }, // an invalid version compares as 0.0.0
  { expr: "semver_compare('1.2.3','>=1.2')", error: 'Could not parse Range ">=1.2"' },
  { expr: "semver_compare('1.2.3','|| 1.0.0')", error: "First element in range is '||'" },
  // (K) Test_ImageNormalize
  { expr: "image_normalize('nginx')", result: 'docker.io/nginx:latest' },
  { expr: "image_normalize('docker.io/nginx')", result: 'docker.io/nginx:latest' },
  { expr: "image_normalize('docker.io/library/nginx')", result: 'docker.io/library/nginx:latest' },
  { expr: "image_normalize('ghcr.io/library/nginx')", result: 'ghcr.io/library/nginx:latest' },
  { expr: "image_normalize('ghcr.io/nginx')", result: 'ghcr.io/nginx:latest' },
  { expr: "image_normalize('ghcr.io/nginx:latest')", result: 'ghcr.io/nginx:latest' },
  { expr: "image_normalize('ghcr.io/nginx:1.2')", result: 'ghcr.io/nginx:1.2' },
  {
    expr: "image_normalize('')",
    error: "JMESPath function 'image_normalize': bad image: docker.io/, defaultRegistry: docker.io, enableDefaultRegistryMutation: true: invalid reference format",
  },
  { expr: "image_normalize('localhost:5000/app')", result: 'localhost:5000/app:latest' },
  { expr: "image_normalize('bitnami/redis@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef')", result: 'docker.io/bitnami/redis@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef' },
  { expr: "image_normalize('Nginx')", error: 'repository name must be lowercase' },
  { expr: "image_normalize('nginx@sha256:abc')", error: 'invalid reference format' },
  // random: the result matches the pattern (the generator is seeded in the test)
  { expr: "regex_match('^[a-z0-9]{6}$', random('[a-z0-9]{6}'))", result: true },
  { expr: "regex_match('^(ab|cd)+x?[[:digit:]][0-9]{2,3}$', random('(ab|cd)+x?[[:digit:]][0-9]{2,3}'))", result: true },
  // goregen parses without Perl's flags (syntax.Parse(pattern, 0)): \d is no escape there
  { expr: "random('[[:digit:]]\\d{2,3}')", error: 'error parsing regexp: invalid escape sequence: `\\d`' },
  { expr: "regex_match('^[^a-z]{4}$', random('[^a-z]{4}'))", result: true },
  { expr: "random('')", error: 'no pattern provided' },
  { expr: "random('[a-')", error: 'error parsing regexp' },
  // is_external_url: host names judged by their form (no DNS) — see README
  { expr: "is_external_url('https://example.com/x')", result: true },
  { expr: "is_external_url('http://10.1.2.3:8080')", result: false },
  { expr: "is_external_url('http://192.168.0.1')", result: false },
  { expr: "is_external_url('http://8.8.8.8')", result: true },
  { expr: "is_external_url('http://[::1]/')", result: false },
  { expr: "is_external_url('http://localhost:3000')", result: false },
  { expr: "is_external_url('http://my-service:8080')", result: false },
  { expr: "is_external_url('http://api.default.svc.cluster.local')", result: false },
  { expr: "is_external_url('not a url')", error: 'lookup : no such host' }, // Go parses it as a path: no host
  // IP literals: Go's IsLoopback() || IsPrivate() and nothing else is internal (link-local, CGNAT,
  // multicast and unspecified addresses are external in Kyverno); IPv4-mapped IPv6 is judged as IPv4.
  { expr: "is_external_url('http://169.254.169.254/latest/meta-data')", result: true },
  { expr: "is_external_url('http://100.64.0.1')", result: true },
  { expr: "is_external_url('http://0.0.0.0')", result: true },
  { expr: "is_external_url('http://224.0.0.1')", result: true },
  { expr: "is_external_url('http://172.32.0.1')", result: true },
  { expr: "is_external_url('http://172.31.255.1')", result: false },
  { expr: "is_external_url('http://[fe80::1]')", result: true },
  { expr: "is_external_url('http://[ff02::1]')", result: true },
  { expr: "is_external_url('http://[::]')", result: true },
  { expr: "is_external_url('http://[fd::1]')", result: true }, // 00fd::, outside fc00::/7
  { expr: "is_external_url('http://[fc00::1]')", result: false },
  { expr: "is_external_url('http://[0:0:0:0:0:0:0:1]')", result: false },
  { expr: "is_external_url('http://[::ffff:127.0.0.1]')", result: false },
  { expr: "is_external_url('http://[::ffff:10.1.2.3]:8080/')", result: false },
  { expr: "is_external_url('http://[::ffff:8.8.8.8]')", result: true },
  // no host: Go's resolver refuses the empty name
  { expr: "is_external_url('file:///etc/passwd')", error: 'lookup : no such host' },
];

/** Go formatting and parsing details, through the functions that expose them. */
export const goDetailVectors: Vector[] = [
  // quantities: canonical form (k8s Quantity.String)
  { expr: "add('1500m', '0')", result: '1500m' },
  { expr: "add('1.5k', '0')", result: '1500' },
  { expr: "add('2000', '0')", result: '2k' },
  { expr: "add('1e3', '1e3')", result: '2e3' },
  { expr: "add('0.5Gi', '0')", result: '512Mi' },
  { expr: "add('1Mi', '1Ki')", result: '1025Ki' },
  { expr: "add('1.5n', '0')", result: '2n' }, // below nano rounds up
  { expr: "subtract('1Ki', '1Ki')", result: '0' },
  { expr: "add('-1Ki', '0')", result: '-1Ki' },
  { expr: "add('1', '1E')", result: '1000000000000000001' },
  // durations: ParseDuration and String
  { expr: "add('1h2m3.5s', '0s')", result: '1h2m3.5s' },
  { expr: "add('-1.5h', '0s')", result: '-1h30m0s' },
  { expr: "add('1µs', '1μs')", result: '2µs' },
  { expr: "add('.5s', '0s')", result: '500ms' },
  { expr: "add('2562047h48m', '0s')", error: 'invalid operand' }, // overflow: neither quantity nor duration
  { expr: "multiply('1h', `0.5`)", result: '30m0s' },
  { expr: "divide('1h', `7`)", result: '8m34.285714285s' },
  // %v of floats in go-jmespath type errors
  { expr: 'keys(`1000000`)', error: 'Invalid type for: 1e+06,' },
  { expr: 'keys(`123456`)', error: 'Invalid type for: 123456,' },
  { expr: 'keys(`0.0001`)', error: 'Invalid type for: 0.0001,' },
  { expr: 'keys(`0.00001`)', error: 'Invalid type for: 1e-05,' },
  { expr: 'keys(`[true, null, "s"]`)', error: 'Invalid type for: [true <nil> s],' },
  // time layouts
  { expr: "time_parse('3:04PM', '11:30PM')", result: '0000-01-01T23:30:00Z' },
  { expr: "time_parse('3:04pm', '12:05am')", result: '0000-01-01T00:05:00Z' },
  { expr: "time_parse('2006-002', '2024-060')", result: '2024-02-29T00:00:00Z' },
  { expr: "time_parse('2006-01-02T15:04:05.000Z07:00', '2024-01-02T03:04:05.123+01:00')", result: '2024-01-02T03:04:05+01:00' },
  { expr: "time_parse('2006-01-02T15:04:05.000Z07:00', '2024-01-02T03:04:05.12+01:00')", error: 'cannot parse' },
  { expr: "time_parse('Monday, 02-Jan-06 15:04:05 MST', 'Friday, 15-Mar-24 08:00:00 UTC')", result: '2024-03-15T08:00:00Z' },
  { expr: "time_parse('January 2 2006', 'march 5 2021')", result: '2021-03-05T00:00:00Z' },
  { expr: "time_parse('02 Jan 06 15:04 -0700', '02 Jan 21 15:04 +0100')", result: '2021-01-02T15:04:00+01:00' },
  { expr: "time_parse('2006-01-02 MST', '2021-01-02 GMT+3')", result: '2021-01-02T00:00:00+03:00' },
  { expr: "time_parse('2006-01-02', '2021-13-02')", error: 'month out of range' },
  { expr: "time_add('2024-12-31T23:59:59Z', '1s')", result: '2025-01-01T00:00:00Z' },
  { expr: "time_add('2024-03-10T12:00:00-05:00', '-36h')", result: '2024-03-09T00:00:00-05:00' },
  { expr: "time_to_cron('2024-02-29T23:59:00+02:00')", result: '59 23 29 2 4' },
  { expr: "time_diff('2024-01-01T00:00:00Z', '2023-01-01T00:00:00Z')", result: '-8760h0m0s' },
];
