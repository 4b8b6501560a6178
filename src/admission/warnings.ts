/**
 * The `warnings` of an AdmissionReview reply, shaped as the API server will keep them
 * (k8s.io/apiserver pkg/endpoints/filters/warning.go and apimachinery's NewWarningHeader):
 *
 * - empty texts are dropped and repeated texts kept once (the server deduplicates);
 * - control characters (newlines, tabs…) become spaces: the server silently drops a warning that holds
 *   one, and a message quoting a multi-line value would otherwise vanish;
 * - past 4096 characters in all, the server cuts every warning to 256 characters and stops adding them
 *   once 4096 are written. Amender applies the same rule to its own list so that what the reply carries
 *   is what `kubectl` shows (other webhooks' warnings share the server's budget; those Amender cannot see).
 */

/** The API server's budget for all warnings of one request, in characters (runes). */
export const WARNINGS_TOTAL_CHARS = 4 * 1024;
/** What each warning is cut to once the total budget is exceeded. */
export const WARNING_ITEM_CHARS = 256;

// C0 controls, DEL and C1 controls: what Go's unicode.IsControl reports.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

function runes(text: string): string[] {
  return Array.from(text);
}

/** The warnings to put in a reply, in order: cleaned, deduplicated and within the server's budget. */
export function boundWarnings(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  const clean: string[] = [];
  for (const text of texts) {
    const one = text.replace(CONTROL, ' ').trim();
    if (one === '' || seen.has(one)) continue;
    seen.add(one);
    clean.push(one);
  }
  let total = 0;
  for (const w of clean) total += runes(w).length;
  if (total <= WARNINGS_TOTAL_CHARS) return clean;
  const out: string[] = [];
  let written = 0;
  for (const w of clean) {
    if (written >= WARNINGS_TOTAL_CHARS) break;
    const chars = runes(w);
    const cut = chars.length > WARNING_ITEM_CHARS ? chars.slice(0, WARNING_ITEM_CHARS).join('') : w;
    out.push(cut);
    written += Math.min(chars.length, WARNING_ITEM_CHARS);
  }
  return out;
}
