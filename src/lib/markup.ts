/**
 * The one way this project writes HTML: the `html` tagged template. Every
 * value put into it is escaped for the place it lands in, unless it is
 * `Markup`, which only `html` itself and `trusted` (a constant of the code)
 * make. A name, a question or an engine read from the upstream is therefore
 * text wherever a page shows it: it cannot close an attribute, open a tag or
 * become a `javascript:` link.
 *
 * ```ts
 * const row = html`<tr data-engine="${engine}"><th scope="row">${label}</th></tr>`;
 * const list = html`<tbody>${rows.map(rowOf)}</tbody>`; // arrays of Markup join
 * ```
 *
 * Where a value lands, decided once per template from its literal text:
 * - between tags: escaped (`&<>"'`);
 * - inside a quoted attribute value: escaped; at the start of a URL
 *   attribute (`href`, `src`, `action`, ...), a URL whose scheme is not
 *   `http`, `https` or `mailto` is replaced by `about:invalid#refused`;
 * - a string in an event handler or `style` attribute, an unquoted value, a
 *   comment, or `<script>`/`<style>` is a programming error (TypeError): only
 *   numbers, or in raw text `trusted` constants and `inlineScript` code, may
 *   go there;
 * - inside a tag, outside any value: only `Markup` (say, html`selected`).
 *
 * `null`, `undefined`, `false` and `''` write nothing anywhere.
 * `scripts/check-html.mjs` (in `npm test`) finds HTML written any other way.
 * No import but the escaping, so the MCP App's browser bundle carries it.
 */
import { escapeHtml } from './escape';

let make: (html: string) => Markup;

/** HTML the code built: the only thing `html` writes as it is. */
export class Markup {
  static {
    make = (html) => new Markup(html);
  }
  private constructor(
    /** The HTML text, to send or to set as `innerHTML`. */
    readonly html: string,
  ) {}
}

/** What a template's hole takes. */
export type Hole = Markup | string | number | null | undefined | false | readonly Hole[];

/** Nothing, as markup. */
export const EMPTY = make('');

/**
 * Markup, CSS or script that the code itself wrote: a constant, never a value
 * read from anywhere (the check in `npm test` allows only literals and
 * UPPER_CASE constants here).
 */
export function trusted(constant: string): Markup {
  return make(constant);
}

/**
 * Code for an inline `<script>`, escaped for that place: what would end the
 * script early or open a comment in it (`</script`, `<!--`) is written so
 * that the script reads the same and the parser does not stop.
 */
export function inlineScript(code: string): Markup {
  return make(code.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--'));
}

/** Markup items joined by `separator` (text, escaped). */
export function joinMarkup(items: readonly Markup[], separator = ''): Markup {
  const sep = escapeHtml(separator);
  return make(items.map((m) => m.html).join(sep));
}

type Place = { in: 'text' } | { in: 'raw'; what: string } | { in: 'tag' } | { in: 'value'; attr: string; start: boolean } | { in: 'unquoted'; attr: string };

const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'cite', 'poster', 'background', 'ping', 'manifest', 'data', 'codebase']);
const RAW_TEXT = new Set(['script', 'style']);

/** The scheme of a URL as a browser reads it (tabs and newlines removed, leading controls and spaces stripped). */
const schemeOf = (url: string) => /^([a-z][a-z0-9+.-]*):/i.exec(url.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+/, ''))?.[1]?.toLowerCase();
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto']);
/** A link whose scheme could run code or read local data goes nowhere instead. */
export const REFUSED_URL = 'about:invalid#refused';
export const safeUrl = (url: string) => {
  const scheme = schemeOf(url);
  return scheme === undefined || SAFE_SCHEMES.has(scheme) ? url : REFUSED_URL;
};

/**
 * Where each hole of a template lands, from its literal parts: a small
 * tokenizer of the HTML syntax the templates use (tags, quoted and unquoted
 * attributes, comments, `<script>` and `<style>`).
 */
function placesOf(strings: readonly string[]): Place[] {
  const places: Place[] = [];
  type State = 'text' | 'tagname' | 'endtag' | 'tag' | 'attr' | 'afterattr' | 'beforevalue' | 'value' | 'unquoted' | 'comment' | 'raw' | 'decl';
  let state: State = 'text' as State;
  let name = '';
  let attr = '';
  let quote = '';
  let valueStart = true;
  /** After a start tag's `>`: text, or the raw text of `<script>` and `<style>`. */
  const openTag = (): State => (RAW_TEXT.has(name) ? 'raw' : 'text');
  for (let part = 0; part < strings.length; part++) {
    const s = strings[part]!;
    for (let i = 0; i < s.length; i++) {
      const c = s[i]!;
      switch (state) {
        case 'text':
          if (c !== '<') break;
          if (s.startsWith('!--', i + 1)) {
            state = 'comment';
            i += 3;
          } else if (/[a-zA-Z]/.test(s[i + 1] ?? '')) {
            state = 'tagname';
            name = '';
          } else if (s[i + 1] === '/') state = 'endtag';
          else if (s[i + 1] === '!' || s[i + 1] === '?') state = 'decl';
          break;
        case 'tagname':
          if (/\s/.test(c) || c === '/') state = 'tag';
          else if (c === '>') state = openTag();
          else name += c.toLowerCase();
          break;
        case 'endtag':
        case 'decl':
          if (c === '>') state = 'text';
          break;
        case 'tag':
        case 'afterattr':
          if (c === '>') state = openTag();
          else if (c === '=' && state === 'afterattr') state = 'beforevalue';
          else if (!/[\s/]/.test(c)) {
            state = 'attr';
            attr = c.toLowerCase();
          }
          break;
        case 'attr':
          if (c === '=') state = 'beforevalue';
          else if (c === '>') state = openTag();
          else if (/[\s/]/.test(c)) state = 'afterattr';
          else attr += c.toLowerCase();
          break;
        case 'beforevalue':
          if (c === '"' || c === "'") {
            state = 'value';
            quote = c;
            valueStart = true;
          } else if (c === '>') state = openTag();
          else if (!/\s/.test(c)) state = 'unquoted';
          break;
        case 'value':
          if (c === quote) state = 'tag';
          else valueStart = false;
          break;
        case 'unquoted':
          if (/\s/.test(c)) state = 'tag';
          else if (c === '>') state = openTag();
          break;
        case 'comment':
          if (s.startsWith('-->', i)) {
            state = 'text';
            i += 2;
          }
          break;
        case 'raw':
          if (s.slice(i, i + 2 + name.length).toLowerCase() === `</${name}`) {
            state = 'endtag';
            i += 1 + name.length;
          }
          break;
      }
    }
    if (part === strings.length - 1) break;
    switch (state) {
      case 'text':
        places.push({ in: 'text' });
        break;
      case 'value':
        places.push({ in: 'value', attr, start: valueStart });
        valueStart = false;
        break;
      case 'beforevalue':
      case 'unquoted':
        places.push({ in: 'unquoted', attr });
        state = 'unquoted';
        break;
      case 'comment':
      case 'raw':
      case 'decl':
        places.push({ in: 'raw', what: state === 'raw' ? `<${name}>` : 'a comment' });
        break;
      default:
        places.push({ in: 'tag' });
    }
  }
  return places;
}

const placesByTemplate = new WeakMap<TemplateStringsArray, Place[]>();

const isNothing = (value: Hole) => value === null || value === undefined || value === false || value === '';

function refuse(place: string, value: Hole, strings: readonly string[], hole: number): never {
  const around = `${strings[hole]!.slice(-40)}\${…}${strings[hole + 1]!.slice(0, 20)}`;
  throw new TypeError(`html: a ${Array.isArray(value) ? 'list' : value instanceof Markup ? 'markup value' : typeof value} cannot go ${place} (${around})`);
}

/** A value between tags: text escaped, markup as it is, lists joined. */
function textOf(value: Hole): string {
  if (isNothing(value)) return '';
  if (value instanceof Markup) return value.html;
  if (Array.isArray(value)) return value.map(textOf).join('');
  return escapeHtml(String(value));
}

/** The `html` tag: see the module's comment. */
export function html(strings: TemplateStringsArray, ...values: Hole[]): Markup {
  let places = placesByTemplate.get(strings);
  if (!places) {
    places = placesOf(strings);
    placesByTemplate.set(strings, places);
  }
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    const place = places[i]!;
    let text = '';
    if (!isNothing(value)) {
      switch (place.in) {
        case 'text':
          text = textOf(value);
          break;
        case 'value':
          if (typeof value === 'number') text = String(value);
          else if (typeof value !== 'string') refuse(`into the attribute ${place.attr}`, value, strings, i);
          else if (place.attr.startsWith('on') || place.attr === 'style') refuse(`into the attribute ${place.attr}`, value, strings, i);
          else text = escapeHtml(place.start && URL_ATTRIBUTES.has(place.attr) ? safeUrl(value) : value);
          break;
        case 'unquoted':
          refuse(`into the unquoted attribute ${place.attr} (quote it)`, value, strings, i);
          break;
        case 'raw':
          if (!(value instanceof Markup)) refuse(`into ${place.what}`, value, strings, i);
          text = value.html;
          break;
        case 'tag':
          if (!(value instanceof Markup)) refuse('inside a tag, outside an attribute value', value, strings, i);
          text = value.html;
          break;
      }
    }
    out += text + strings[i + 1]!;
  }
  return make(out);
}
