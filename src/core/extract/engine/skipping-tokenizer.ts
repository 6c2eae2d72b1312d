import { Parser, Tokenizer, type Handler } from 'htmlparser2';

/**
 * htmlparser2's tokenizer, with runs of characters that cannot change its state skipped in one step.
 *
 * The stock tokenizer visits every character through its state switch; with entity decoding on (the default),
 * text and quoted attribute values are read one character at a time although only `<` (or the closing quote)
 * and `&` mean anything there. Parsing is about two thirds of an extraction, and the tokenizer most of the
 * parse (docs/performance.md, "Profiles" 18). Here those states jump to the next character that matters
 * (`indexOf`, a native scan), and tag and attribute names to the next character that ends them. Every other
 * state, and every character that does matter, goes to the stock code, so the callbacks (and the document
 * built from them) are the same, event for event: test/unit/structure-skipping-tokenizer.test.ts holds it to
 * the stock tokenizer on generated and real pages, and `parserOptions()` falls back to the stock tokenizer if
 * the installed htmlparser2 no longer has the internals this relies on or reads a probe page differently.
 */

const LT = 0x3c;
const AMP = 0x26;
const GT = 0x3e;
const SLASH = 0x2f;
const EQ = 0x3d;
const DOUBLE_QUOTE = 0x22;

/** htmlparser2's isEndOfTagSection: whitespace, `/` or `>`. */
function endsTagSection(c: number): boolean {
  return c === SLASH || c === GT || c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

/** The internals of htmlparser2 12's Tokenizer this subclass reads and overrides (private in its typings). */
interface TokenizerInternals {
  buffer: string;
  index: number;
  offset: number;
  readonly decodeEntities: boolean;
  stateText(c: number): void;
  handleInAttributeValue(c: number, quote: number): void;
  stateInTagName(c: number): void;
  stateInClosingTagName(c: number): void;
  stateInAttributeName(c: number): void;
  fastForwardTo(c: number): boolean;
}

type TokenizerClass = new (...args: ConstructorParameters<typeof Tokenizer>) => TokenizerInternals;

const OVERRIDDEN = [
  'stateText',
  'handleInAttributeValue',
  'stateInTagName',
  'stateInClosingTagName',
  'stateInAttributeName',
  'fastForwardTo',
] as const;

/** Whether the installed tokenizer still has the methods overridden below. */
export function hasTokenizerInternals(): boolean {
  const prototype = Tokenizer.prototype as unknown as Record<string, unknown>;
  return OVERRIDDEN.every((name) => typeof prototype[name] === 'function');
}

const Stock = Tokenizer as unknown as TokenizerClass;

export class SkippingTokenizer extends Stock {
  /**
   * The next `&` at or after the last position asked about (Infinity: none left), in the chunk written at
   * `ampOffset`: by offset, since two chunks of a streamed page can be equal strings.
   */
  private ampOffset = -1;
  private ampAt = -1;

  /** The parse loop increments `index` after each state call: leave it one before the next character to read. */
  private skipTo(position: number): void {
    this.index = Math.min(position, this.buffer.length) + this.offset - 1;
  }

  /** Where the next character after the current one lies, as a position in the current buffer. */
  private next(): number {
    return this.index - this.offset + 1;
  }

  /** Position of the next `&` at or after `from`: one scan per `&` found, not one per text run. */
  private nextAmpersand(from: number): number {
    if (this.ampOffset !== this.offset || this.ampAt < from) {
      this.ampOffset = this.offset;
      const found = this.buffer.indexOf('&', from);
      this.ampAt = found < 0 ? Infinity : found;
    }
    return this.ampAt;
  }

  /** Position of `char` at or after `from`, Infinity if none. */
  private nextOf(char: string, from: number): number {
    const found = this.buffer.indexOf(char, from);
    return found < 0 ? Infinity : found;
  }

  /**
   * The stock tokenizer's own skip (raw text of script and style, comments, the rest of a closing tag), by
   * `indexOf` instead of a loop over the characters: the same contract, `index` on the character when found,
   * one before the end of the buffer when not.
   */
  override fastForwardTo(c: number): boolean {
    const found = this.nextOf(String.fromCharCode(c), this.next());
    if (found !== Infinity) {
      this.index = found + this.offset;
      return true;
    }
    this.index = this.buffer.length + this.offset - 1;
    return false;
  }

  /** Text: only `<` and (decoding entities) `&` change anything. */
  override stateText(c: number): void {
    if (c === LT || c === AMP) {
      super.stateText(c);
      return;
    }
    const from = this.next();
    const lt = this.nextOf('<', from);
    this.skipTo(this.decodeEntities ? Math.min(lt, this.nextAmpersand(from)) : lt);
  }

  /** A quoted attribute value: only its closing quote and (decoding entities) `&` change anything. */
  override handleInAttributeValue(c: number, quote: number): void {
    if (c === quote || c === AMP) {
      super.handleInAttributeValue(c, quote);
      return;
    }
    const from = this.next();
    const end = this.nextOf(quote === DOUBLE_QUOTE ? '"' : "'", from);
    this.skipTo(this.decodeEntities ? Math.min(end, this.nextAmpersand(from)) : end);
  }

  override stateInTagName(c: number): void {
    if (endsTagSection(c)) super.stateInTagName(c);
    else this.skipTo(this.nextEnd(this.next(), false));
  }

  override stateInClosingTagName(c: number): void {
    if (endsTagSection(c)) super.stateInClosingTagName(c);
    else this.skipTo(this.nextEnd(this.next(), false));
  }

  override stateInAttributeName(c: number): void {
    if (c === EQ || endsTagSection(c)) super.stateInAttributeName(c);
    else this.skipTo(this.nextEnd(this.next(), true));
  }

  /** The next character that ends a name (and `=` for attribute names). Names are short: a plain loop. */
  private nextEnd(from: number, equalsEnds: boolean): number {
    const buffer = this.buffer;
    let i = from;
    for (; i < buffer.length; i += 1) {
      const c = buffer.charCodeAt(i);
      if (endsTagSection(c) || (equalsEnds && c === EQ)) break;
    }
    return i;
  }
}

/** The subclass as htmlparser2's `Tokenizer` option takes it (its typings know only the stock class). */
const SKIPPING_OPTION = { Tokenizer: SkippingTokenizer as unknown as typeof Tokenizer };

type ParserCallbacks = Partial<Handler>;

/**
 * Every callback the parser makes over `html`, with the source positions it reports, as lines of text: what
 * two tokenizers must agree on for the documents built from them to be the same.
 */
export function parseEvents(html: string, tokenizer: 'stock' | 'skipping', chunks = 1): string[] {
  const events: string[] = [];
  const record =
    (name: string) =>
    (...args: unknown[]) => {
      events.push(JSON.stringify([name, parser.startIndex, parser.endIndex, ...args]));
    };
  const callbacks: ParserCallbacks = {
    onopentagname: record('opentagname'),
    onopentag: record('opentag'),
    onattribute: record('attribute'),
    ontext: record('text'),
    onclosetag: record('closetag'),
    oncomment: record('comment'),
    oncommentend: record('commentend'),
    oncdatastart: record('cdatastart'),
    oncdataend: record('cdataend'),
    onprocessinginstruction: record('processinginstruction'),
    onerror: record('error'),
    onend: record('end'),
  };
  // The callbacks read `parser` only once it exists: the constructor calls none of them.
  const parser = new Parser(callbacks, tokenizer === 'skipping' ? SKIPPING_OPTION : {});
  const size = Math.max(1, Math.ceil(html.length / chunks));
  for (let at = 0; at < html.length; at += size) parser.write(html.slice(at, at + size));
  parser.end();
  return events;
}

/** A page with every kind of token whose reading the skipping tokenizer shortens or hands back. */
const PROBE = `<!DOCTYPE html><html><head><title>A &amp; B &lt; C</title><style>p>a{color:red}</style>
<script>if (a < b && c > d) { x = "</p>"; }</script></head><BODY class=main data-x='1&amp;2' data-y="a&quot;b" hidden>
<p id="p1">Text &copy; more &#169; &#xA9; &notanentity; &amp</p><!-- a comment -- with dashes --><![CDATA[ raw ]]>
<img src=/a.png alt="x > y"/><br/><textarea>&lt;b&gt; kept</textarea><svg><path d="M0 0"/></svg>
<a href="/q?a=1&b=2&amp;c=3">link</a></p  ><!----><!-- x ---><DIV\tclass="t"\nid=u>end<?php echo 1 ?></DIV></BODY></html>`;

let chosen: { Tokenizer?: typeof Tokenizer } | undefined;

/**
 * Parser options that use the skipping tokenizer when this htmlparser2 still has the internals it overrides
 * and reads the probe page exactly as the stock tokenizer does; the stock tokenizer otherwise.
 */
export function parserOptions(): { Tokenizer?: typeof Tokenizer } {
  if (chosen) return chosen;
  let same = false;
  try {
    same = hasTokenizerInternals() && JSON.stringify(parseEvents(PROBE, 'stock')) === JSON.stringify(parseEvents(PROBE, 'skipping'));
  } catch {
    // Internals that changed shape: the stock tokenizer reads every page.
  }
  chosen = same ? SKIPPING_OPTION : {};
  return chosen;
}
