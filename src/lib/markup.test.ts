/**
 * The `html` template (src/lib/markup.ts), the one way pages write HTML: each
 * value escaped for where it lands, checked with a real HTML parser (parse5,
 * the WHATWG algorithm browsers implement): whatever a value holds, the
 * document has the elements and attributes the template wrote, and the value
 * reads back as the same text.
 */
import { describe, expect, it } from 'vitest';
import { html, inlineScript, joinMarkup, type Markup, REFUSED_URL, trusted } from './markup';
import { HOSTILE_STRINGS, parsePage, shapeOf } from '../../test/hostile-markup';

/** A template with a value in each place a page puts one: text, attributes, a URL attribute, a title. */
const card = (value: string) =>
  html`<!doctype html><html><head><title>${value}</title></head><body><div class="card" data-name="${value}" title='${value}'><a href="${value}">${value}</a><p>${value} and ${[html`<b>${value}</b>`, value]}</p><input type="text" value="${value}"><textarea>${value}</textarea></div></body></html>`;

describe('html', () => {
  it('writes every hostile value as text: the same elements and attributes as a plain value, and the value reads back as it was', () => {
    const plain = shapeOf(parsePage(card('plain').html));
    for (const value of HOSTILE_STRINGS) {
      const document = parsePage(card(value).html);
      expect(shapeOf(document), value).toEqual(plain);
      const div = document.find((n) => n.tag === 'div')!;
      expect(div.attrs['data-name'], value).toBe(value);
      expect(div.attrs.title, value).toBe(value);
      expect(document.find((n) => n.tag === 'title')!.text, value).toBe(value);
      expect(document.find((n) => n.tag === 'textarea')!.text, value).toBe(value);
      expect(document.find((n) => n.tag === 'input')!.attrs.value, value).toBe(value);
      expect(document.find((n) => n.tag === 'b')!.text, value).toBe(value);
    }
  });

  it('refuses a link to a scheme that runs code or reads local data, however it is spelled, and keeps web, mail and relative links', () => {
    const hrefOf = (url: string) => parsePage(html`<a href="${url}">x</a>`.html).find((n) => n.tag === 'a')!.attrs.href;
    for (const url of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' \u0001javascript:alert(1)',
      'java\tscript:alert(1)',
      'java\nscript:alert(1)',
      'vbscript:msgbox(1)',
      'data:text/html,<script>alert(1)</script>',
      'file:///etc/passwd',
    ]) {
      expect(hrefOf(url), url).toBe(REFUSED_URL);
    }
    for (const url of [
      'https://edge.test/r/v1.a.b',
      'http://localhost:8787/x',
      'mailto:a@example.com',
      '/reports/weekly?market=us&brand_id=1',
      '?page=2',
      '#top',
      'x/javascript:alert(1)',
      '&#106;avascript:alert(1)',
    ]) {
      expect(hrefOf(url), url).toBe(url);
    }
    // A URL attribute whose start the template wrote keeps its scheme: the value is a path or query within it.
    expect(parsePage(html`<a href="/r/${'javascript:x'}">x</a>`.html).find((n) => n.tag === 'a')!.attrs.href).toBe('/r/javascript:x');
  });

  it('refuses, as a programming error, a string where escaping cannot make it safe', () => {
    const value = 'x';
    expect(() => html`<p onclick="${value}">`).toThrow(/attribute onclick/);
    expect(() => html`<p style="color:${value}">`).toThrow(/attribute style/);
    expect(() => html`<p class=${value}>`).toThrow(/unquoted attribute class/);
    expect(() => html`<p ${value}>`).toThrow(/inside a tag/);
    expect(() => html`<script>var a = ${value};</script>`).toThrow(/into <script>/);
    expect(() => html`<style>p{color:${value}}</style>`).toThrow(/into <style>/);
    expect(() => html`<!-- ${value} -->`).toThrow(/into a comment/);
    expect(() => html`<a href="${html`<b>x</b>`}">`).toThrow(/markup value cannot go into the attribute href/);
  });

  it('takes what is safe in those places: numbers in a style, markup the code built inside a tag or in raw text, nothing', () => {
    expect(html`<span style="width:${42.5}%"></span>`.html).toBe('<span style="width:42.5%"></span>');
    expect(html`<tr${html` class="latest"`}><td></td></tr>`.html).toBe('<tr class="latest"><td></td></tr>');
    expect(html`<style>${trusted('p{color:red}')}</style>`.html).toBe('<style>p{color:red}</style>');
    expect(html`<p>${null}${undefined}${false}${''}</p><p class="${null}"></p><tr${null}></tr>`.html).toBe('<p></p><p class=""></p><tr></tr>');
    expect(joinMarkup([html`<i>a</i>`, html`<i>b</i>`], ' & ').html).toBe('<i>a</i> &amp; <i>b</i>');
  });

  it('inlines a script so that nothing in it ends the element early', () => {
    const code = 'var s = "</script><img src=x>"; var c = "<!--";';
    const document = parsePage(html`<script>${inlineScript(code)}</script><p>after</p>`.html);
    expect(document.filter((n) => n.tag === 'script')).toHaveLength(1);
    expect(document.some((n) => n.tag === 'img')).toBe(false);
    expect(document.find((n) => n.tag === 'p')!.text).toBe('after');
  });

  it('is a Markup only when the template or trusted made it', () => {
    const forged = { html: '<script>alert(1)</script>' } as unknown as Markup;
    expect(html`<p>${forged as never}</p>`.html).not.toContain('<script>');
  });
});
