/** The base64 JSON patch of an AdmissionReview reply given as its text; undefined when it has none. Throws on text that is not JSON. */
export function replyPatch(text: string): string | undefined {
  return (JSON.parse(text) as { response?: { patch?: string } }).response?.patch;
}
