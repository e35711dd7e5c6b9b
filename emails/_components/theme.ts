/**
 * Colours and type of every email, in a light and a dark scheme. Text colours
 * meet WCAG 2.2 AA contrast (4.5:1 or more), computed from the sRGB relative
 * luminance of WCAG 2.2:
 * - light, on white: ink 17.7:1, muted 7.6:1, link 6.7:1, bad 6.5:1, good
 *   5.5:1; on the panel (#f3f4f6): ink 16.1:1, muted 6.9:1, link 6.1:1, bad
 *   5.9:1, good 5.0:1;
 * - dark, on the page (#111827): ink 17.0:1, muted 12.0:1, link 9.8:1, good
 *   11.6:1, bad 9.4:1; on the panel (#1f2937): ink 14.1:1, muted 10.0:1,
 *   link 8.1:1, good 9.6:1, bad 7.7:1;
 * - the button's white text on link blue: 6.7:1, in both schemes.
 * The chart's marks are decoration (3:1 against their track or more: 4.2:1
 * and 8.4:1 light, 4.1:1 and 7.3:1 dark); its figures are written out too.
 *
 * Inline styles carry the light scheme (what every client shows); each
 * element that has a colour also has a class (`fg-*`, `bg-*`), which the
 * dark scheme overrides: `@media (prefers-color-scheme: dark)` for Apple
 * Mail, iOS and the clients that honour it, and Outlook.com's `[data-ogsc]`
 * (text) and `[data-ogsb]` (background) selectors, in a block of their own so
 * a client that drops it keeps the rest.
 */
import type { CSSProperties } from 'react';

export const color = {
  ink: '#111827',
  muted: '#4b5563',
  rule: '#e5e7eb',
  panel: '#f3f4f6',
  page: '#ffffff',
  link: '#1d4ed8',
  good: '#047857',
  bad: '#b91c1c',
  track: '#f3f4f6',
  mark: '#2563eb',
  markLatest: '#1e3a8a',
  /** The report page's chart (src/reports/page.ts) draws bars in these. */
  bar: '#2563eb',
  barLatest: '#1e3a8a',
  barEmpty: '#e5e7eb',
} as const;

export const dark = {
  outer: '#030712',
  page: '#111827',
  panel: '#1f2937',
  rule: '#374151',
  ink: '#f9fafb',
  muted: '#d1d5db',
  link: '#93c5fd',
  good: '#6ee7b7',
  bad: '#fca5a5',
  track: '#1f2937',
  mark: '#60a5fa',
  markLatest: '#bfdbfe',
} as const;

/** The classes the dark scheme recolours. */
export const cls = {
  outer: 'bg-outer',
  page: 'bg-page',
  panel: 'bg-panel',
  ink: 'fg-ink',
  muted: 'fg-muted',
  link: 'fg-link',
  good: 'fg-good',
  bad: 'fg-bad',
  rule: 'rule',
  track: 'bg-track',
  mark: 'bg-mark',
  markLatest: 'bg-mark-latest',
  edgeGood: 'edge-good',
  edgeBad: 'edge-bad',
} as const;

type Rule = [selector: string, property: 'color' | 'background-color' | 'border-color', value: string];

const FOREGROUND: Rule[] = [
  [cls.ink, 'color', dark.ink],
  [cls.muted, 'color', dark.muted],
  [cls.link, 'color', dark.link],
  [cls.good, 'color', dark.good],
  [cls.bad, 'color', dark.bad],
];
const BACKGROUND: Rule[] = [
  [cls.outer, 'background-color', dark.outer],
  [cls.page, 'background-color', dark.page],
  [cls.panel, 'background-color', dark.panel],
  [cls.track, 'background-color', dark.track],
  [cls.mark, 'background-color', dark.mark],
  [cls.markLatest, 'background-color', dark.markLatest],
];
const BORDER: Rule[] = [
  [cls.page, 'border-color', dark.rule],
  [cls.rule, 'border-color', dark.rule],
  [cls.edgeGood, 'border-color', dark.good],
  [cls.edgeBad, 'border-color', dark.bad],
];

const rules = (list: Rule[], prefix = '') => list.map(([c, p, v]) => `${prefix}.${c}{${p}:${v} !important}`).join('');

/** The main style block: both schemes declared, narrow screens, and the dark scheme. */
export const STYLE = [
  ':root{color-scheme:light dark;supported-color-schemes:light dark}',
  'a{word-break:break-word}',
  '@media only screen and (max-width:480px){.frame{padding:20px 16px !important}.h1{font-size:20px !important;line-height:26px !important}}',
  `@media (prefers-color-scheme:dark){${rules([...FOREGROUND, ...BACKGROUND, ...BORDER])}}`,
].join('\n');

/** Outlook.com's dark mode marks what it recoloured: text with `data-ogsc`, backgrounds with `data-ogsb`. */
export const OUTLOOK_STYLE = [rules([...FOREGROUND, ...BORDER], '[data-ogsc] '), rules(BACKGROUND, '[data-ogsb] ')].join('\n');

export const font = {
  family: '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif',
} as const;

export const text = {
  body: { fontFamily: font.family, fontSize: '15px', lineHeight: '22px', color: color.ink, margin: '0 0 12px' },
  small: { fontFamily: font.family, fontSize: '13px', lineHeight: '18px', color: color.muted, margin: '0 0 8px' },
  h1: { fontFamily: font.family, fontSize: '22px', lineHeight: '28px', color: color.ink, margin: '0 0 4px', fontWeight: 700 },
  h2: { fontFamily: font.family, fontSize: '17px', lineHeight: '24px', color: color.ink, margin: '28px 0 8px', fontWeight: 700 },
} as const;

/** Long words (a signed link, a long brand name) wrap instead of widening the email. */
export const wrapAnywhere = { overflowWrap: 'anywhere', wordBreak: 'break-word' } as CSSProperties;

/** Hidden in the HTML part, kept in the text part: the text part is converted from the same HTML. */
export const textOnly = {
  display: 'none',
  maxHeight: 0,
  overflow: 'hidden',
  msoHide: 'all',
} as unknown as CSSProperties;
