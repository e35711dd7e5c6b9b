/**
 * The plain-text part of an email, from its HTML: what React Email's
 * `toPlainText` gives for the HTML our templates render (html-to-text with
 * React Email's selectors and ours), written for that HTML alone. Not the
 * library itself: html-to-text, its HTML parser and their entity tables are
 * 46 KiB gzip of the Worker's 400 KiB budget (docs/benchmarks.md), for HTML
 * that React writes and we know. src/mail/plain-text.test.ts holds it to
 * `toPlainText` on every template and on generated content.
 *
 * What it reads: the body only; comments, `img`, `head`, `style` and
 * `[data-skip-in-text="true"]` skipped; `p`, headings, `hr` and layout
 * tables as blocks 2 lines apart (no template writes a list), `div`, sections, `td` and `th` 1
 * line apart; a link as its text and its address (the address alone when
 * they are the same, none for `#…`); `br` as a line break; runs of
 * whitespace as one space; headings in the case they are written.
 *
 * ```ts
 * plainText('<body><h1>Hi</h1><p>See <a href="https://x.test/r">the report</a>.</p></body>');
 * // 'Hi\n\nSee the report https://x.test/r.'
 * ```
 */

/** Elements that stand apart from what is around them, and the line breaks before and after each. */
const BLOCKS: Record<string, number> = {
  p: 2,
  h1: 3,
  h2: 3,
  h3: 3,
  h4: 2,
  h5: 2,
  h6: 2,
  hr: 2,
  table: 2,
  pre: 2,
  blockquote: 2,
  div: 1,
  section: 1,
  article: 1,
  aside: 1,
  header: 1,
  footer: 1,
  main: 1,
  nav: 1,
  form: 1,
  td: 1,
  th: 1,
};
/** Trailing breaks where they differ from leading ones (headings: 3 before, 2 after). */
const TRAILING: Record<string, number> = { h1: 2, h2: 2, h3: 2 };
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
/** Skipped with everything inside. */
const SKIPPED = new Set(['head', 'style', 'script', 'img', 'title']);
/** What html-to-text takes for whitespace between words (a zero-width space too). */
const WHITESPACE = /[ \t\r\n\f\u200b]+/;
const HORIZONTAL_LINE = '-'.repeat(40);

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
/** Character references as React writes them (`&amp;`, `&#x27;`, `&#8203;`). */
export const decodeEntities = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });

/** The lines being written: words joined by one space, blocks by the most line breaks either side asks. */
class TextWriter {
  private out = '';
  /** Line breaks owed before the next word (a block's edge). */
  private breaks = 0;
  /** Line breaks written by `br` since the last word. */
  private lineBreaks = 0;
  private space = false;

  word(word: string): void {
    if (this.out !== '') {
      const breaks = Math.max(this.breaks, this.lineBreaks);
      if (breaks > 0) this.out += '\n'.repeat(breaks);
      else if (this.space) this.out += ' ';
    }
    this.out += word;
    this.breaks = 0;
    this.lineBreaks = 0;
    this.space = false;
  }

  text(text: string): void {
    const words = text.split(WHITESPACE);
    words.forEach((word, i) => {
      if (i > 0) this.space = true;
      if (word !== '') this.word(word);
    });
  }

  block(breaks: number): void {
    this.breaks = Math.max(this.breaks, breaks);
    this.space = false;
  }

  lineBreak(): void {
    this.lineBreaks++;
    this.space = false;
  }

  toString = () => this.out;
}

interface Open {
  name: string;
  /** A skipped element: nothing inside it is written. */
  skipped: boolean;
  /** A link's address, written after its text. */
  href?: string | undefined;
  /** The text written since the link opened, to tell whether the address is the text. */
  from?: number;
}

const TOKEN = /<!--[\s\S]*?-->|<!\[[\s\S]*?\]>|<!doctype[^>]*>|<\/([a-zA-Z][\w-]*)\s*>|<([a-zA-Z][\w-]*)((?:\s+[^\s/>=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>|[^<]+|</gi;
const ATTRIBUTE = /([^\s/>=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

function attributesOf(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const [, name, a, b, c] of text.matchAll(ATTRIBUTE)) found.set(name!.toLowerCase(), decodeEntities(a ?? b ?? c ?? ''));
  return found;
}

/** The plain text of an email's HTML (see the module comment). */
export function plainText(html: string): string {
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  const writer = new TextWriter();
  const open: Open[] = [];
  const skipping = () => open.some((element) => element.skipped);
  let written = '';
  const write = (text: string) => {
    written += text;
    writer.text(text);
  };
  for (const [token, closing, opening, attributes = '', selfClosing] of body.matchAll(TOKEN)) {
    if (token.startsWith('<!')) continue;
    if (opening !== undefined) {
      const name = opening.toLowerCase();
      const attrs = attributesOf(attributes);
      if (VOID.has(name) || selfClosing === '/') {
        if (skipping()) continue;
        if (name === 'br') writer.lineBreak();
        else if (name === 'hr') {
          writer.block(BLOCKS.hr!);
          writer.word(HORIZONTAL_LINE);
          writer.block(BLOCKS.hr!);
        }
        continue;
      }
      const skipped = SKIPPED.has(name) || attrs.get('data-skip-in-text') === 'true';
      const element: Open = { name, skipped };
      open.push(element);
      if (skipping()) continue;
      if (BLOCKS[name] !== undefined) writer.block(BLOCKS[name]);
      if (name === 'a') {
        element.href = attrs.get('href');
        element.from = written.length;
      }
      continue;
    }
    if (closing !== undefined) {
      const name = closing.toLowerCase();
      const at = open.findLastIndex((o) => o.name === name);
      if (at < 0) continue;
      const [element] = open.splice(at);
      if (element!.skipped || skipping()) continue;
      if (name === 'a' && element!.href !== undefined && !element!.href.startsWith('#')) {
        const text = written.slice(element!.from).trim();
        if (text !== element!.href) write(` ${element!.href}`);
      }
      if (BLOCKS[name] !== undefined) writer.block(TRAILING[name] ?? BLOCKS[name]);
      continue;
    }
    if (!skipping()) write(token.startsWith('<') ? token : decodeEntities(token));
  }
  return writer.toString();
}

/**
 * The text part as it is sent: zero-width characters (the preview's padding) out, no leading blank, no trailing
 * spaces, at most one blank line in a row.
 */
export const tidyText = (text: string): string =>
  text
    .replace(/[\u200c\u200b\u2060\u00ad\ufeff]|\u034f/g, '')
    .replace(/^\s+/, '')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n');
