/**
 * The dotted names of values given to the engine (the Kyverno CLI's values and `--set`), split as
 * Kyverno's context.AddVariable splits them: as one CSV record with `.` as the separator, so a
 * segment in double quotes may hold dots (`metadata.labels."app.kubernetes.io/name"`), `""` inside
 * quotes is one quote, and a quote elsewhere makes the name invalid.
 */

/** The segments of `name`, or undefined when Go's CSV reader refuses it (empty, stray quotes). */
export function splitVariableName(name: string): string[] | undefined {
  if (name === '') return undefined;
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (name[i] === '"') {
      i++;
      for (;;) {
        const close = name.indexOf('"', i);
        if (close < 0) return undefined;
        field += name.slice(i, close);
        i = close + 1;
        if (name[i] !== '"') break;
        field += '"';
        i++;
      }
      if (i < name.length && name[i] !== '.') return undefined;
    } else {
      const end = name.indexOf('.', i);
      field = name.slice(i, end < 0 ? name.length : end);
      if (field.includes('"')) return undefined;
      i += field.length;
    }
    fields.push(field);
    if (i >= name.length) return fields;
    i++; // the separator
    if (i === name.length) {
      fields.push('');
      return fields;
    }
  }
}
