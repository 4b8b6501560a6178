/**
 * Which `{{ }}` variables Kyverno's policy validation knows (the MockContext of pkg/engine/context,
 * filled by buildContext in pkg/validation/policy): a variable is known when its expression — trimmed,
 * double quotes removed — matches one of four unanchored regexes anywhere (`request`, `element`, `@`,
 * `images`, a function call…; which one depends on background mode and on whether the rule has
 * `mutate.targets`), or one of the wildcard patterns the rule's context entries add (`name*` for a
 * variable / apiCall / imageRegistry / globalReference entry, `name.data`, `name.data.*`,
 * `name.metadata`, `name.metadata.*` for a configMap). The expression must parse as JMESPath first.
 */
import { getOwn, isJsonObject, type JsonObject, type JsonValue } from '../../json/index.js';
import { goTrimSpace, wildcardMatch } from '../../go/index.js';
import { compile as compileJmesPath } from '../jmespath/index.js';
import { messageOf } from '../errors.js';
import { isSet } from './is-set.js';

/** The regexes as Kyverno writes them (its messages quote them). */
const RESERVED = String.raw`request|serviceAccountName|serviceAccountNamespace|element|elementIndex|@|images|image|([a-z_0-9]+\()[^{}]`;
const BACKGROUND = String.raw`request\.|element|elementIndex|@|images|images\.|image\.|([a-z_0-9]+\()[^{}]`;
const IN_TARGET = String.raw`request\.|serviceAccountName|serviceAccountNamespace|element|elementIndex|@|images|images\.|image\.|target\.|([a-z_0-9]+\()[^{}]`;
const BACKGROUND_IN_TARGET = String.raw`request\.|element|elementIndex|@|images|images\.|image\.|target\.|([a-z_0-9]+\()[^{}]`;

const REGEXES = new Map([RESERVED, BACKGROUND, IN_TARGET, BACKGROUND_IN_TARGET].map((source) => [source, new RegExp(source)]));

/** Why a variable is refused: not known (Kyverno's InvalidVariableError), or not an expression at all. */
export interface VariableFault {
  readonly unknown: boolean;
  readonly message: string;
}

export class AllowedVariables {
  private readonly regex: RegExp | undefined;

  /** `regexSource` undefined: patterns only (as Kyverno's tests build it). */
  constructor(
    private readonly regexSource: string | undefined,
    private readonly patterns: string[] = [],
  ) {
    this.regex = regexSource === undefined ? undefined : REGEXES.get(regexSource) ?? new RegExp(regexSource);
  }

  /** Kyverno's choice of regex (getAllowedVariables). */
  static forRule(background: boolean, target: boolean): AllowedVariables {
    if (target) return new AllowedVariables(background ? BACKGROUND_IN_TARGET : IN_TARGET);
    return new AllowedVariables(background ? BACKGROUND : RESERVED);
  }

  addPattern(pattern: string): void {
    this.patterns.push(pattern);
  }

  /** The patterns of context entries (addContextVariables). */
  addContext(entries: JsonValue | undefined): void {
    if (!Array.isArray(entries)) return;
    for (const entry of entries) {
      if (!isJsonObject(entry)) continue;
      const name = stringOf(getOwn(entry, 'name'));
      if (['apiCall', 'globalReference', 'imageRegistry', 'variable'].some((k) => present(getOwn(entry, k)))) this.addPattern(`${name}*`);
      if (present(getOwn(entry, 'configMap'))) {
        for (const suffix of ['.data', '.metadata', '.data.*', '.metadata.*']) this.addPattern(name + suffix);
      }
    }
  }

  /** MockContext.Query: nothing when the variable is known. */
  check(expression: string): VariableFault | undefined {
    let query = goTrimSpace(expression); // strings.TrimSpace: U+0085 is a space, U+FEFF is not
    if (query === '') return { unknown: false, message: 'invalid query (nil)' };
    try {
      compileJmesPath(query);
    } catch (error) {
      return { unknown: false, message: `invalid JMESPath query ${query}: ${messageOf(error)}` };
    }
    // `{{ "my-map".data.key }}` is written quoted because of the dash; the patterns are not.
    query = query.replaceAll('"', '');
    if (this.regex?.test(query)) return undefined;
    if (this.patterns.some((p) => wildcardMatch(p, query))) return undefined;
    const patterns = `[${this.patterns.join(' ')}]`;
    return {
      unknown: true,
      message: this.regexSource === undefined ? `variable ${query} must match patterns ${patterns}` : `variable ${query} must match regex "${this.regexSource}" or patterns ${patterns}`,
    };
  }
}

/**
 * The known variables of one rule (buildContext): the rule's context entries, those of the first level
 * of `foreach` in validate, mutate and generate rules (nested foreach entries add nothing), of
 * `mutate.targets`, and the names of image attestations when a verifyImages entry validates.
 */
export function allowedVariablesOf(rule: JsonObject, background: boolean, target: boolean): AllowedVariables {
  const allowed = AllowedVariables.forRule(background, target);
  allowed.addContext(getOwn(rule, 'context'));
  const verifyImages = getOwn(rule, 'verifyImages');
  if (Array.isArray(verifyImages) && verifyImages.some((v) => isJsonObject(v) && isSet(getOwn(v, 'validate')))) {
    for (const v of verifyImages) {
      const attestations = isJsonObject(v) ? getOwn(v, 'attestations') : undefined;
      if (!Array.isArray(attestations)) continue;
      for (const a of attestations) if (isJsonObject(a)) allowed.addPattern(`${stringOf(getOwn(a, 'name'))}*`);
    }
  }
  for (const [section, list] of [
    ['validate', 'foreach'],
    ['mutate', 'foreach'],
    ['mutate', 'targets'],
    ['generate', 'foreach'],
  ]) {
    const holder = getOwn(rule, section);
    const entries = isJsonObject(holder) ? getOwn(holder, list) : undefined;
    if (Array.isArray(entries)) for (const e of entries) if (isJsonObject(e)) allowed.addContext(getOwn(e, 'context'));
  }
  return allowed;
}

/** A Go pointer field that was given (not absent, not null). */
function present(value: JsonValue | undefined): boolean {
  return value !== undefined && value !== null;
}

function stringOf(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : '';
}
