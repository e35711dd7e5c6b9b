/**
 * Colours and type of every email. Text colours meet WCAG 2.2 AA contrast
 * (4.5:1 or more), computed from the sRGB relative luminance of WCAG 2.2:
 * on white, ink 17.7:1, muted 7.6:1, link 6.7:1, bad 6.5:1, good 5.5:1; on
 * the panel (#f3f4f6, behind the lead line) ink is 16.1:1; the button's white
 * text on link blue is 6.7:1. Bars are decoration; their figures are always
 * written out too.
 */
export const color = {
  ink: '#111827',
  muted: '#4b5563',
  rule: '#e5e7eb',
  panel: '#f3f4f6',
  page: '#ffffff',
  link: '#1d4ed8',
  good: '#047857',
  bad: '#b91c1c',
  bar: '#2563eb',
  barLatest: '#1e3a8a',
  barEmpty: '#e5e7eb',
} as const;

export const font = {
  family: '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif',
} as const;

export const text = {
  body: { fontFamily: font.family, fontSize: '15px', lineHeight: '22px', color: color.ink, margin: '0 0 12px' },
  small: { fontFamily: font.family, fontSize: '13px', lineHeight: '18px', color: color.muted, margin: '0 0 8px' },
  h1: { fontFamily: font.family, fontSize: '22px', lineHeight: '28px', color: color.ink, margin: '0 0 8px', fontWeight: 700 },
  h2: { fontFamily: font.family, fontSize: '17px', lineHeight: '24px', color: color.ink, margin: '24px 0 8px', fontWeight: 700 },
} as const;

/** Hidden in the HTML part, kept in the text part: the text part is converted from the same HTML. */
export const textOnly = {
  display: 'none',
  maxHeight: 0,
  overflow: 'hidden',
  msoHide: 'all',
} as unknown as React.CSSProperties;
