/**
 * The `yaml` package looks a tag it has no entry for up in a plain object (`knownTags[name]`), so a tag
 * named like an Object member (`!<constructor> x`, `!<__proto__> x`) finds an inherited function and the
 * parse fails with "tag.resolve is not a function". These entries of their own for those names keep the
 * text, as for any other tag go-yaml does not know (it reads such a scalar as its text). Pass them among a
 * parse's `customTags`.
 */
export const OBJECT_MEMBER_TAGS: readonly { tag: string; default: false; resolve: (text: string) => string }[] = Object.getOwnPropertyNames(Object.prototype).map((tag) => ({
  tag,
  default: false,
  resolve: (text: string) => text,
}));
