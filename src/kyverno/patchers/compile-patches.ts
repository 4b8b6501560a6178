/**
 * The patch fields a rule and a foreach entry share, prepared at load: overlays refused when they hold
 * validate-only anchors, and the JSON patch that applies parsed once into a template.
 */
import { getOwn, isJsonObject, setOwn, type JsonObject, type JsonValue } from '../../json/index.js';
import type { Report } from '../compile-report.js';
import type { TemplatedPatch } from '../types.js';
import { isValidateOnly, parseAnchor } from './anchors.js';
import { compilePatchTemplate, type PatchTemplate } from './patch-template.js';

/** A plain rule's JSON patch parsed once, when it is the patch that applies (no strategic merge). */
export function templatedPatch(mutate: JsonObject, substitutable: JsonObject): TemplatedPatch | undefined {
  const text = getOwn(mutate, 'patchesJson6902');
  const template = patchTemplateOf(getOwn(mutate, 'patchStrategicMerge'), text);
  if (!template) return undefined;
  const restMutate: JsonObject = {};
  for (const key of Object.keys(mutate)) if (key !== 'patchesJson6902') setOwn(restMutate, key, mutate[key]);
  const rest: JsonObject = {};
  for (const key of Object.keys(substitutable)) setOwn(rest, key, key === 'mutate' ? restMutate : substitutable[key]);
  return { text: text as string, template, rest };
}

/** The parsed-once form of the JSON patch that applies: none when a strategic merge wins or there is no text. */
export function patchTemplateOf(psm: JsonValue | undefined, json: JsonValue | undefined): PatchTemplate | undefined {
  if ((psm !== undefined && psm !== null) || typeof json !== 'string' || json === '') return undefined;
  return compilePatchTemplate(json);
}

export function checkOverlay(overlay: JsonValue, path: string, report: Report): void {
  if (!isJsonObject(overlay)) {
    report.error(path, 'must be an object');
    return;
  }
  const visit = (value: JsonValue, at: string) => {
    if (Array.isArray(value)) value.forEach((v, i) => visit(v, `${at}[${i}]`));
    else if (isJsonObject(value)) {
      for (const key of Object.keys(value)) {
        if (isValidateOnly(parseAnchor(key))) {
          report.error(`${at}.${key}`, `"${key}" is a validate-only anchor; mutate overlays support +(key), (key) and <(key)`);
        }
        visit(value[key], `${at}.${key}`);
      }
    }
  };
  visit(overlay, path);
}
