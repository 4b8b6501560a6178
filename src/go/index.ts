/**
 * Go's behaviour that more than one module of Amender reproduces, once: the standard library (strconv,
 * fmt, encoding/json, time, string order, int64 arithmetic) and the small Go modules that both
 * engines link (blang/semver, Kyverno's go-wildcard, goregen). Pure functions over strings, numbers and
 * JSON values; no platform imports, nothing above src/json and src/guard (and the `yaml` and `re2js`
 * packages).
 *
 *   quote.ts         strconv.Quote (`%q`) and the time package's own quote
 *   float.ts         strconv.FormatFloat ('g', 'E', float32 'f'), encoding/json numbers, ParseFloat
 *   int64.ts         int64 wrap-around, float64 → int64, strconv.ParseInt / ParseUint
 *   string-order.ts  Go's string order (UTF-8 bytes = code points)
 *   trim-space.ts    strings.TrimSpace and unicode.IsSpace
 *   utf8.ts      unicode/utf8: the valid sequence at a byte, as DecodeRune accepts it
 *   sprint.ts        fmt.Sprint (`%v`) of decoded JSON
 *   json.ts          encoding/json.Marshal of decoded JSON
 *   duration.ts      time.Duration: ParseDuration (Go's messages), String(), Seconds()
 *   time.ts          time.Parse with reference layouts (RFC 3339 included), Format(RFC3339), arithmetic
 *   calendar.ts      the proleptic Gregorian day arithmetic under the time package
 *   semver.ts        blang/semver v4: Parse, Compare, String, ParseRange
 *   wildcard.ts      Kyverno's wildcard.Match (go-wildcard v1): `*`, `?` = one rune
 *   hash.ts          crypto/sha256, sha1, md5 (hex digests), synchronously
 *   der.ts           encoding/asn1 DER reading, encoding/pem, standard base64
 *   base64.ts        encoding/base64 decoding, padded (StdEncoding) and raw (RawStdEncoding)
 *   x509.ts          crypto/x509 certificate decoding, as encoding/json marshals the Go struct
 *   yaml.ts          YAML 1.1 as sigs.k8s.io/yaml (go-yaml v2) reads it, into JSON values
 *   yaml-documents.ts  a YAML stream's documents composed one at a time, a slice of lexemes at a time
 *   regen.ts         goregen's regen.Generate: a random string a regular expression matches (re2js
 *                    checks the pattern's Go syntax)
 *
 * Parsers come in two forms where both are needed: `parseX` throws an error carrying Go's message,
 * `tryParseX` returns `undefined` (no exception on hot paths).
 */
export { SHORT_ESCAPES, strconvQuote, timeQuote } from './quote.js';
export { formatFloat32F, formatFloatE, formatFloatG, goJsonNumber, parseFloat64 } from './float.js';
export { floatToInt64, parseInt64, parseUint64, pastInt64Digits, wrap64 } from './int64.js';
export { compareStrings } from './string-order.js';
export { goTrimSpace, isGoSpace } from './trim-space.js';
export { goSprint } from './sprint.js';
export { goJsonStringify, jsonString } from './json.js';
export { durationSeconds, formatDuration, parseDuration, SECOND, tryParseDuration } from './duration.js';
export {
  addDuration,
  compareTimes,
  formatRFC3339,
  fromUnixMillis,
  parseTime,
  RFC3339,
  rfc3339Error,
  subTimes,
  timeFields,
  truncateTime,
  tryParseRFC3339,
  unixNanos,
  type GoTime,
  type TimeFields,
} from './time.js';
export { civilFromDays, daysFromCivil, daysInMonth, isLeapYear, type CivilDate } from './calendar.js';
export {
  compareVersions,
  formatVersion,
  parseRange,
  parseVersion,
  SemverError,
  splitN,
  tryParseVersion,
  ZERO_VERSION,
  type PreRelease,
  type Range,
  type Version,
} from './semver.js';
export { hasWildcard, wildcardMatch } from './wildcard.js';
export { md5, sha1, sha256 } from './hash.js';
export { B64_INDEX, base64, bigInteger, children, parseOnly } from './der.js';
export { base64Decode } from './base64.js';
export { X509Error, x509Decode } from './x509.js';
export { locateFirstProblems, MAX_YAML_DEPTH, parseYaml11, parseYaml11Document, parseYaml11FirstDocument, parseYamlDepthBounded, yaml11Json, yamlDocumentReader, yamlErrorLocation, yamlErrorLocator, YamlError, withoutQuotedLine } from './yaml.js';
export { gunzip, GzipError, GzipOutputTooLarge, gzipStored } from './gzip.js';
export { goJsonSyntaxError } from './json-syntax.js';
export { randomFromPattern, RegenError } from './regen.js';
export { GO_NULL_VALUE, GoNative, goBytes, goDuration, goTime } from './native.js';
export { utf8SequenceLength } from './utf8.js';
