/**
 * What an attacker puts in the strings a page shows, and how a test sees what
 * a browser would build from the page: parse5 parses HTML as browsers do (the
 * WHATWG algorithm), and a page's shape is the elements and the attribute
 * names it holds. No binding: the unit tests beside the code import it in
 * Node; test/hostile.ts re-exports it beside the hostile upstream.
 */
import { type DefaultTreeAdapterMap, parse } from 'parse5';

/** Each one a way out of text or an attribute, or a link that runs code; all short enough for an open value (80). */
export const HOSTILE_STRINGS = [
  'x"><meta http-equiv="refresh" content="0;url=http://evil.test/">',
  '</p><script>alert(1)</script>',
  'javascript:alert(1)//',
  "' onmouseover='alert(1)' x='",
  '" autofocus onfocus="alert(1)',
  '&lt;img src=x onerror=alert(1)&gt;&#34;&quot;',
  '<img src=x onerror=alert(1)>',
  '</textarea></title><svg onload=alert(1)>',
  '<!--',
  ']]><![CDATA[<b>x</b>',
  '<base href="http://evil.test/"><form action="http://evil.test/">',
  '\u2028<a href="javascript:alert(1)">x</a>',
];

/** One element of a parsed page: its tag, attributes and text (its descendants' text, joined). */
export interface ParsedElement {
  tag: string;
  attrs: Record<string, string>;
  text: string;
}

type Node = DefaultTreeAdapterMap['node'];

/** Every element of `page`, in document order, as a browser's parser builds them. */
export function parsePage(page: string): ParsedElement[] {
  const elements: ParsedElement[] = [];
  const textOf = (node: Node): string => ('value' in node && node.nodeName === '#text' ? node.value : 'childNodes' in node ? node.childNodes.map(textOf).join('') : '');
  const visit = (node: Node) => {
    if ('tagName' in node) elements.push({ tag: node.tagName, attrs: Object.fromEntries(node.attrs.map((a) => [a.name, a.value])), text: textOf(node) });
    if ('childNodes' in node) node.childNodes.forEach(visit);
    if ('content' in node && node.content) visit(node.content as Node);
  };
  visit(parse(page));
  return elements;
}

/** The shape of a page: each element as its tag and attribute names, sorted (order differs when names sort otherwise). */
export const shapeOf = (elements: ParsedElement[]) => elements.map((e) => `${e.tag}[${Object.keys(e.attrs).sort().join(',')}]`).sort();

/** Attributes that would run code or load something from elsewhere if a value had taken them over. */
export function dangerousAttributes(elements: ParsedElement[]): string[] {
  return elements.flatMap((e) =>
    Object.entries(e.attrs).flatMap(([name, value]) => {
      const squeezed = value.replace(/[\u0000-\u0020]/g, '').toLowerCase();
      if (name.startsWith('on')) return [`${e.tag} ${name}`];
      if (['href', 'src', 'action', 'formaction'].includes(name) && /^(javascript|data|vbscript):/.test(squeezed)) return [`${e.tag} ${name}=${value}`];
      if (e.tag === 'meta' && name === 'http-equiv') return [`meta http-equiv=${value}`];
      return [];
    }),
  );
}
