/**
 * The documents of a YAML stream, composed one at a time and a slice of lexemes at a time, with the
 * depth bound of parseYamlDepthBounded (src/go/yaml.ts, which reads a text whole through this).
 *
 * Why a reader that can stop: a policy file of 1 MiB (100,000 tiny documents, or one CRD of deep
 * schemas) takes the `yaml` package a second or more, and on the Node server the thread that parses
 * also answers probes and reviews. A caller reads a slice, lets the event loop turn, and reads on.
 * Why one document at a time: each document handed over can be converted and dropped at once, instead
 * of holding every Document (and its own Schema) of the stream until the last is composed.
 */
import { Composer, CST, Lexer, Parser, type Document, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';

export type ComposeOptions = ParseOptions & DocumentOptions & SchemaOptions;

/** What the reader needs of a review's guard (YamlTicker in yaml.ts). */
export interface LexemeGuard {
  tick(): void;
  /** Called for each lexeme that starts a value; throws past the review's bound. */
  value(): void;
}

export const nestsTooDeeply = (maxDepth: number) => `the document nests too deeply to read (more than ${maxDepth} levels)`;

/** Whether a lexeme starts a value: a plain or block scalar's marker, a quoted scalar, a flow collection, an alias. */
function startsValue(lexeme: string): boolean {
  const c = lexeme.charCodeAt(0);
  return c === 0x1f || c === 0x22 /* " */ || c === 0x27 /* ' */ || c === 0x5b /* [ */ || c === 0x7b /* { */ || c === 0x2a /* * */;
}

/**
 * Lexer → Parser → Composer, driven one lexeme at a time (no generator between them), so that the
 * parser's stack can be cut back to `maxDepth` collections after each lexeme: the document is then
 * marked too deep, and composed as an empty document whose error says so, pointing at its first
 * collection too deep. The composer's errors capture no stack trace (a text can hold an error every two
 * characters; their traces were most of the parse).
 */
export class YamlDocumentReader {
  private readonly lexemes: Iterator<string>;
  private readonly parser = new Parser();
  private readonly composer: Composer;
  /** A document → the offset of its first collection too deep. */
  private readonly tooDeep = new Map<CST.Token, number>();
  private afterTooDeep = false;
  private finished = false;

  constructor(
    private readonly text: string,
    options: ComposeOptions,
    private readonly maxDepth: number,
    /** Compose an empty document for a stream that holds none (parseDocument's `forceDoc`). */
    private readonly forceDoc: boolean,
    private readonly guard?: LexemeGuard,
  ) {
    this.lexemes = new Lexer().lex(text)[Symbol.iterator]();
    this.composer = new Composer(options);
  }

  /** Whether the whole text was read (or the reader stopped). */
  get done(): boolean {
    return this.finished;
  }

  /**
   * Reads up to `lexemes` more lexemes, handing each document completed meanwhile to `onDocument`, which
   * returns false to stop reading. Returns whether the reader is done.
   */
  read(lexemes: number, onDocument: (doc: Document.Parsed) => boolean): boolean {
    if (this.finished) return true;
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      const { parser, guard, maxDepth } = this;
      for (let n = 0; n < lexemes; n++) {
        const next = this.lexemes.next();
        if (next.done === true) {
          for (const token of parser.end()) if (!this.token(token, onDocument)) return this.stop();
          for (const doc of this.composer.end(this.forceDoc, this.text.length)) if (!onDocument(doc as Document.Parsed)) return this.stop();
          return this.stop();
        }
        const lexeme = next.value;
        if (guard) {
          guard.tick();
          if (startsValue(lexeme)) guard.value();
        }
        for (const token of parser.next(lexeme)) if (!this.token(token, onDocument)) return this.stop();
        const { stack } = parser;
        if (stack.length > maxDepth + 1 && CST.isCollection(stack[maxDepth + 1])) {
          if (stack[0].type === 'document' && !this.tooDeep.has(stack[0])) this.tooDeep.set(stack[0], stack[maxDepth + 1].offset);
          stack.length = maxDepth + 1;
        }
      }
      return false;
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
  }

  private stop(): true {
    this.finished = true;
    return true;
  }

  /** One token of the parser to the composer; false when `onDocument` asked to stop. */
  private token(token: CST.Token, onDocument: (doc: Document.Parsed) => boolean): boolean {
    if (token.type === 'document') this.afterTooDeep = this.tooDeep.has(token);
    // What the parser misreads of a document too deep once its stack was cut (a `]` for each level cut).
    else if (this.afterTooDeep && token.type === 'error') return true;
    const offset = this.tooDeep.get(token);
    const given = offset === undefined ? token : { ...(token as CST.Document), value: { type: 'error' as const, offset, source: '', message: nestsTooDeeply(this.maxDepth) } };
    for (const doc of this.composer.next(given)) if (!onDocument(doc as Document.Parsed)) return false;
    return true;
  }
}
