/**
 * Texts (policy texts, as they come back with every review) and what a memo remembers of them, up to a
 * number of texts and of characters in all, emptied when full. A text longer than `textMax` is not kept.
 */
export class TextMemo<T> {
  private readonly map = new Map<string, T>();
  private chars = 0;
  constructor(
    private readonly textMax: number,
    private readonly countMax = 4096,
    private readonly charsMax = 1 << 22,
  ) {}
  get(text: string): T | undefined {
    return this.map.get(text);
  }
  set(text: string, value: T): void {
    if (text.length > this.textMax) return;
    if (this.map.size >= this.countMax || this.chars + text.length > this.charsMax) {
      this.map.clear();
      this.chars = 0;
    }
    this.map.set(text, value);
    this.chars += text.length;
  }
}
