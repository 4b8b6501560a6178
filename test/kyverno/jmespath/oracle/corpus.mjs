// Expressions and documents run through go-jmespath's `jp` (Debian package `jp`, go-jmespath 0.4.0)
// by make-oracle.mjs; the answers are stored in go-jmespath-oracle.json and replayed by the tests.
export const docs = {
  basic: { foo: { bar: { baz: 'correct' }, 'with space': 1, list: [1, 2, 3] }, a: null, b: false, c: '', d: [], e: {}, n: 5, s: 'hello' },
  people: {
    people: [
      { name: 'a', age: 30, tags: ['x', 'y'], ok: true },
      { name: 'b', age: 25, tags: [], ok: false },
      { name: 'c', age: 35, ok: null },
      { name: 'd', age: 20, tags: ['z'] },
    ],
    nested: [[1, 2], [3, [4, 5]], 6, null, []],
    obj: { x: { v: 1 }, y: { v: 2 }, z: { w: 3 } },
  },
  numbers: { nums: [5, -3.5, 10, 0, 2e3], strs: ['b', 'a', 'é', 'Z', 'aa'], mixed: [1, 'a', null, true, [1], { k: 1 }], empty: [] },
  nulls: { a: [null, { b: 1 }, { c: 2 }], n: null, list: [[null], null, [1, null]] },
  pod: {
    metadata: { name: 'web-1', labels: { app: 'web', 'app.kubernetes.io/name': 'x' }, annotations: {} },
    spec: { containers: [{ name: 'a', image: 'nginx:1.2', ports: [{ containerPort: 80 }] }, { name: 'b', image: 'redis' }] },
  },
};

export const expressions = [
  // fields, subexpressions, quoting
  'foo', 'foo.bar', 'foo.bar.baz', 'foo.bar.baz.qux', 'foo."with space"', '"foo"."bar"', 'a', 'a.b', 'b.c', 's.length',
  'n.x', 'foo.list.x', 'missing', 'missing.x', 'foo.missing', 'foo.bar.missing.deeper',
  // index and slices
  'foo.list[0]', 'foo.list[-1]', 'foo.list[5]', 'foo.list[-5]', 'foo.list[0:2]', 'foo.list[::-1]', 'foo.list[1:]', 'foo.list[:-1]',
  'foo.list[::2]', 'foo.list[10:]', 'foo.list[-10:1]', 'foo.list[2:0:-1]', 'foo.list[0:10:3]', 's[0]', 's[0:2]', 'foo.list[0:1:0]', '[0]', '[0:1]',
  // projections
  'people[*].name', 'people[].name', 'people[*].tags', 'people[].tags[]', 'people[*].tags[0]', 'people[*].missing', 'people[?age > `28`].name',
  'people[?ok].name', 'people[?!ok].name', 'people[?ok == `false`].name', 'people[?tags].name', 'people[?tags == `[]`].name', 'people[?age >= `25` && age < `35`].name',
  'people[?name == \'a\' || name == \'d\'].age', 'people[?contains(tags, \'x\')].name', 'people[?length(tags) > `0`].name', 'people[?age > \'1\'].name',
  'nested[]', 'nested[][]', 'nested[*][0]', 'obj.*', 'obj.*.v', 'obj.*.w', '*.v', 'people[*].[name, age]', 'people[*].{n: name, a: age}', 'people[0:2].name',
  'people[-1:].name', 'people[*] | [0]', 'people[*].name | [1]', 'people | length(@)', 'people[].age | max(@)', 'obj.x.v', 'people[?age > `100`]', 'people[?age > `100`] | [0]',
  'people[?age > `100`].name | [0]', 'foo[*]', 'foo[]', 'foo.bar[*]', '*', '*.bar', '[*]', 'people[*]', 'nested[?@ != `null`]', 'nested[?@]',
  // multiselect
  '[foo.bar, n]', '{a: foo.bar.baz, b: n}', 'foo.[bar, n]', 'foo.{x: bar}', 'missing.[a]', 'missing.{a: a}', '[missing, n]', '{"quoted key": n}',
  // logic
  'a || n', 'b || c || d || e || n', 'n || a', 'a && n', 'n && a', 'n && s', '!a', '!n', '!b', '!d', '!e', '!missing', 'n == `5`', 'n == `5.0`', 'n != `5`', 's == \'hello\'',
  'foo.bar == `{"baz": "correct"}`', 'n < `6`', 'n <= `5`', 'n > `5`', 'n >= `5`', 's < \'z\'', 'a < `1`', 'd == e', 'd == `[]`', 'e == `{}`', '`1` == `1`', '`[1,2]` == `[1,2]`', '!a.b',
  '(n)', '(foo).bar', 'foo.(bar)', '@', '@.n', 'foo | bar', 'foo | bar | baz', 'n | @', '`"lit"`', '`[1, {"a": 2}]`', "'raw'", "'it\\'s'", "'back\\\\slash'", '`1.5`', '`-1`', '`true`', '`null`',
  // standard functions
  'abs(`-1.5`)', 'abs(s)', 'avg(nums)', 'avg(empty)', 'avg(strs)', 'ceil(`1.2`)', 'floor(`-1.2`)', 'contains(strs, \'a\')', 'contains(\'hello\', \'ell\')', 'contains(\'hello\', `1`)', 'contains(nums, `10`)',
  'ends_with(s, \'lo\')', 'starts_with(s, \'he\')', 'join(\', \', strs)', 'join(\',\', nums)', 'keys(foo)', 'length(s)', 'length(nums)', 'length(foo)', 'length(n)', 'length(`"é😀"`)', 'map(&a, people)', 'map(&name, people)',
  'max(nums)', 'max(strs)', 'max(empty)', 'max(mixed)', 'min(nums)', 'min(strs)', 'max_by(people, &age).name', 'min_by(people, &age).name', 'max_by(people, &name).age', 'max_by(people, &tags)', 'max_by(empty, &age)',
  'merge(foo, `{"n": 1}`)', 'merge(`{}`)', 'not_null(a, missing, n)', 'not_null(a)', 'reverse(strs)', 'reverse(s)', 'reverse(`"é😀a"`)', 'sort(nums)', 'sort(strs)', 'sort(mixed)', 'sort_by(people, &age)[*].name',
  'sort_by(people, &name)[*].name', 'sort_by(people, &tags)', 'sort_by(people, &ok)', 'sum(nums)', 'sum(empty)', 'to_array(n)', 'to_array(nums)', 'to_number(\'1.5\')', 'to_number(\'abc\')', 'to_number(\'1e3\')',
  'to_number(n)', 'to_number(a)', 'to_number(\' 1\')', 'to_number(\'0x1p-2\')', 'to_string(n)', 'to_string(s)', 'to_string(foo)', 'to_string(`[1, "<a&b>"]`)', 'to_string(`1.5e-7`)', 'to_string(`1e21`)', 'to_string(`100`)',
  'type(n)', 'type(s)', 'type(a)', 'type(b)', 'type(d)', 'type(e)', 'values(obj)', 'length(values(obj))', 'unknown_fn(n)', 'abs(n, n)', 'abs()', 'not_null()', 'merge()', 'abs(`"x"`)',
  // syntax errors
  'foo.', 'foo[', '[foo', 'foo..bar', 'foo.1', '1', '-', 'foo[-]', '"foo"(bar)', 'foo =', 'foo = bar', '$', 'a - b', 'a * b', 'a / b', '`{', "'abc", 'foo[0:1:2:3]', 'foo.[]', '{}', '{a}', '{a: }', '[a,]', 'foo | ', '&', '!', '(', 'a ++ b', 'foo.*.', '@@', 'let $x = 1 in $x',
  // community-edition extensions that original JMESPath rejects or reads differently
  "'abc'[0:2]", 's[::-1]', 'find_first(s, \'l\')', 'lower(s)', 'upper(s)', 'items(foo)', 'from_items(`[]`)', 'zip(nums, strs)', 'group_by(people, &age)', 'pad_left(s, `8`)', 'split(s, \'l\')', 'replace(s, \'l\', \'L\')', 'trim(s)',
  // null handling in projections and multi-selects
  'a[*].{b: b}', 'a[*].[b]', 'a[*].b', 'a[].[b, c]', 'n.[a]', 'n.{a: a}', 'list[]', 'list[][]', 'list[*][0]', 'a[?b].{b: b}', '[n]', '{n: n}', 'a[*].[@]', 'a[*].@',
  // kubernetes-like
  'metadata.labels.app', 'metadata.labels."app.kubernetes.io/name"', 'metadata.labels.team', 'metadata.labels.team || \'none\'', 'spec.containers[*].image', 'spec.containers[?name==\'b\'].image | [0]',
  'length(spec.containers)', 'spec.containers[].ports[].containerPort', 'spec.initContainers[*].name', 'spec.containers[*].ports', 'contains(keys(metadata.labels), \'app\')', 'metadata.annotations.x || `{}`',
];
