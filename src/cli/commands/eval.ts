/**
 * `amender eval`: the Kubernetes admission CEL environment from the command line, for people checking
 * an expression and for conformance runs (JSON lines in, JSON lines out).
 */
import { isJsonObject, JsonParseError, parseJson, type JsonObject, type JsonValue } from '../../json/index.js';
import {
  CompiledVariables,
  Evaluation,
  ROLES,
  RUNTIME_CEL_COST_BUDGET,
  compileExpression,
  formatCelValue,
  type CelRole,
  type VariableDefinition,
} from '../../cel/index.js';
import { UsageError, flag, parseArgs, stringOption } from '../args.js';
import { readDocument, readInput } from '../documents.js';
import type { CliCommand } from '../io.js';

export const EVAL_USAGE = `usage: amender eval --expression CEL [--bindings FILE] [--role ROLE] [--cost] [--kyverno]
       amender eval --batch [--role ROLE] [--cost] [--kyverno]  < requests.jsonl
  Evaluates CEL in the Kubernetes admission environment (MutatingAdmissionPolicy): object, oldObject,
  request, params, namespaceObject, variables; every Kubernetes and extension library.
  --kyverno        the environment of Kyverno's MutatingPolicy instead: Kyverno's libraries too (regex
                   extension, image, json, yaml, time, math, hash, transform, x509).

  --bindings FILE  JSON or YAML object with any of: object, oldObject, request, namespaceObject,
                   params (declares params), variables ([{name, expression}] or {name: expression}).
  --role ROLE      variable (default, any result type), matchCondition (bool), jsonPatch
                   (list(JSONPatch)), applyConfiguration (Object).
  --batch          reads JSON lines {"expression", "bindings", "variables", "params"} from standard input
                   and writes one line per input: {"value": V, "type": T} or {"error": MESSAGE}.
  --cost           adds the evaluation cost ("cost") to each result.

  Output: {"value": V, "type": "T"} where T is the CEL type (cel-go spelling) and V is JSON, with
  values JSON cannot hold tagged: ints beyond ±2^53 {"$int": "..."}, {"$uint": "..."}, integral
  doubles written with ".0", NaN/Infinity {"$double": "NaN"}, {"$bytes": base64},
  {"$timestamp": RFC3339}, {"$duration": "1.5s"}, {"$type": name}, {"$optional": V} (none:
  {"$optional": null, "none": true}), maps with non-string keys {"$map": [[k, v], ...]},
  Object/JSONPatch {"$object": type, "fields": {...}}, library values {"$<type>": text}, e.g.
  {"$net.IP": "10.0.0.1"}.
  Exit status: 0 when a value was printed (batch: when the input could be read), 1 otherwise (2: a
  wrong command line).
`;

/** What a bindings document may hold, and a --batch line beside its bindings. */
const BINDING_KEYS = ['object', 'oldObject', 'request', 'namespaceObject', 'params', 'variables'] as const;
const LINE_KEYS = ['expression', 'bindings', 'variables', 'params'] as const;

/** A key not among `known` is a mistake (`objekt`), not a binding to leave unset without a word. */
function refuseUnknownKeys(doc: JsonObject, known: readonly string[], where: string): void {
  const unknown = Object.keys(doc).find((key) => !known.includes(key));
  if (unknown !== undefined) throw new Error(`${where}: unknown key ${JSON.stringify(unknown)} (expected ${known.join(', ')})`);
}

interface EvalRequest {
  expression: string;
  bindings: JsonObject;
  variables: VariableDefinition[];
  /** undefined: params not declared */
  params?: JsonValue;
}

function variableList(v: unknown, where: string): VariableDefinition[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) {
    return v.map((x, i) => {
      if (!isJsonObject(x) || typeof x.name !== 'string' || typeof x.expression !== 'string') {
        throw new Error(`${where}: variables[${i}] needs a name and an expression`);
      }
      return { name: x.name, expression: x.expression };
    });
  }
  if (isJsonObject(v)) {
    return Object.entries(v).map(([name, expression]) => {
      if (typeof expression !== 'string') throw new Error(`${where}: variable ${name} must be an expression string`);
      return { name, expression };
    });
  }
  throw new Error(`${where}: variables must be a list of {name, expression} or a map of name to expression`);
}

/** Runs one request; the result line (without newline). Never throws. */
function evaluateOne(req: EvalRequest, role: CelRole, withCost: boolean, kyverno = false): { line: string; ok: boolean } {
  const params = req.params !== undefined;
  const vars = CompiledVariables.compile(req.variables, kyverno ? { params, dialect: 'kyverno' } : { params });
  const compiled = compileExpression(req.expression, role, vars.scope());
  if (!compiled.ok) return { line: JSON.stringify({ error: compiled.message }), ok: false };
  const b = req.bindings;
  const ev = new Evaluation(
    {
      object: b.object ?? null,
      oldObject: b.oldObject ?? null,
      request: b.request ?? {},
      namespaceObject: b.namespaceObject ?? null,
      params: req.params ?? null,
    },
    { budget: RUNTIME_CEL_COST_BUDGET, variables: vars },
  );
  const r = ev.evaluate(compiled.compiled);
  if (!r.ok) return { line: JSON.stringify({ error: r.message, ...(withCost ? { cost: r.cost } : {}) }), ok: false };
  const cost = withCost ? `,"cost":${r.cost}` : '';
  return { line: `{"value":${formatCelValue(r.value)},"type":${JSON.stringify(compiled.compiled.typeName)}${cost}}`, ok: true };
}

function roleOption(value: string | undefined): CelRole {
  if (value === undefined) return 'variable';
  if (!(ROLES as readonly string[]).includes(value)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return value as CelRole;
}

/** A request from a bindings document (--expression mode). */
function fromBindings(expression: string, doc: JsonObject | undefined): EvalRequest {
  const bindings = doc ?? {};
  refuseUnknownKeys(bindings, BINDING_KEYS, 'bindings');
  const hasParams = Object.prototype.hasOwnProperty.call(bindings, 'params');
  return {
    expression,
    bindings,
    variables: variableList(bindings.variables, 'bindings'),
    ...(hasParams ? { params: bindings.params ?? null } : {}),
  };
}

/** A request from one JSON line (--batch mode). */
function fromLine(line: JsonValue, n: number): EvalRequest {
  const where = `line ${n}`;
  if (!isJsonObject(line)) throw new Error(`${where}: expected a JSON object`);
  refuseUnknownKeys(line, LINE_KEYS, where);
  if (typeof line.expression !== 'string') throw new Error(`${where}: "expression" must be a string`);
  const bindings = line.bindings === undefined || line.bindings === null ? {} : line.bindings;
  if (!isJsonObject(bindings)) throw new Error(`${where}: "bindings" must be an object`);
  refuseUnknownKeys(bindings, BINDING_KEYS, `${where}: bindings`);
  const hasParams = Object.prototype.hasOwnProperty.call(line, 'params') || Object.prototype.hasOwnProperty.call(bindings, 'params');
  const params = Object.prototype.hasOwnProperty.call(line, 'params') ? line.params : bindings.params;
  return {
    expression: line.expression,
    bindings,
    variables: variableList(line.variables ?? bindings.variables, where),
    ...(hasParams ? { params: params ?? null } : {}),
  };
}

export const evalCommand: CliCommand = async (argv, io) => {
  const args = parseArgs(argv, { expression: 'string', bindings: 'string', batch: 'boolean', role: 'string', cost: 'boolean', kyverno: 'boolean' });
  const kyverno = flag(args, 'kyverno');
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(args.positionals[0])}`);
  const role = roleOption(stringOption(args, 'role'));
  const withCost = flag(args, 'cost');
  const expression = stringOption(args, 'expression');

  if (flag(args, 'batch')) {
    if (expression !== undefined || stringOption(args, 'bindings') !== undefined) {
      throw new UsageError('--batch reads expressions and bindings from standard input; drop --expression/--bindings');
    }
    const text = await readInput('-', io);
    const lines = text.split('\n');
    lines.forEach((raw, i) => {
      if (raw.trim() === '') return;
      let out: string;
      try {
        out = evaluateOne(fromLine(parseJson(raw), i + 1), role, withCost, kyverno).line;
      } catch (e) {
        const msg = e instanceof JsonParseError ? `line ${i + 1}: malformed JSON: ${e.message}` : (e as Error).message;
        out = JSON.stringify({ error: msg });
      }
      io.out(`${out}\n`);
    });
    return 0;
  }

  if (expression === undefined) throw new UsageError('give --expression CEL, or --batch');
  const bindingsFile = stringOption(args, 'bindings');
  const doc = bindingsFile === undefined ? undefined : await readDocument(bindingsFile, io);
  let req: EvalRequest;
  try {
    req = fromBindings(expression, doc);
  } catch (e) {
    io.err(`amender eval: ${(e as Error).message}\n`);
    return 1;
  }
  const r = evaluateOne(req, role, withCost, kyverno);
  (r.ok ? io.out : io.err)(`${r.line}\n`);
  return r.ok ? 0 : 1;
};
