/**
 * The views (src/views) as pages, in the look of the report page: a heading,
 * the way to the brand's other views, each part as a table (a part not
 * provided is its one line), a CSV link under each table, and, on a signed
 * link, the link to share and its JSON. The rivals' share of voice per day is
 * an inline SVG with one line per name, told apart by dash as well as by
 * colour, with every figure in a table under it.
 */
import { EMPTY, html, type Markup, trusted } from '../lib/html';
import { ownValue } from '../lib/http';
import { type CitationsView, type NotProvided, type Part, type PerceptionView, type RivalsView, type RivalsWindow, type TrafficView, tableProvided, type View, VIEWS, type ViewKind } from '../views';
import { engineLabel, formatDay, formatPercent, formatRange, formatStamp } from '../weekly-report';
import { type CsvForm, csvFormSection, csvRow, type PageFrame, type RenderedPage, reportDocument, STYLE } from './page';

/** Where a view page links: its siblings, its CSV tables, and on a signed link itself and its JSON. */
export interface ViewLinks {
  /** The brand's other pages (the report, the history, each view), by kind; absent on a signed link, which opens one view. */
  siblings?: Partial<Record<ViewKind | 'weekly' | 'history', string>>;
  /** CSV links by table id (`VIEWS[kind].tables`), made when the page's form asked for them. */
  csv?: Partial<Record<string, string>>;
  /** Where the page's form posts to have its CSV links made (a GET makes none). */
  csvForm?: CsvForm | undefined;
  share?: { url: string; expiresAt: string };
  json?: string;
  frame?: PageFrame | undefined;
}

const VIEW_STYLE = `${STYLE}
.table-scroll{overflow-x:auto}
.num{text-align:right;font-variant-numeric:tabular-nums}
.nowrap{white-space:nowrap}
.url{overflow-wrap:anywhere}
.not-provided{padding:8px 12px;background:var(--panel);border-left:4px solid var(--muted)}
ul.legend{display:flex;flex-wrap:wrap;gap:4px 16px;list-style:none;padding:0;margin:6px 0;font-size:14px}
ul.legend svg{vertical-align:middle;margin-right:4px}
svg.daily{width:100%;height:auto;color:var(--ink)}
svg.daily .grid{stroke:var(--rule);stroke-width:1}
svg.daily text{fill:var(--muted);font-size:12px}
ul.said{margin:4px 0 8px;padding-left:18px}
ul.engine-cards{list-style:none;padding:0;margin:8px 0;display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:12px}
ul.engine-cards>li{border:1px solid var(--rule);border-radius:6px;padding:10px 14px}
ul.engine-cards h3{margin:0 0 4px;font-size:17px}
ul.engine-cards p{margin:4px 0}`;

const count = (n: number) => n.toLocaleString('en-US');
const signed = (n: number) => (n > 0 ? `+${count(n)}` : n < 0 ? `−${count(-n)}` : '0');
/** An address as people read it: no scheme, no `www.`. */
const shortUrl = (url: string) => url.replace(/^https?:\/\/(www\.)?/, '');
const yesNo = (v: boolean | null) => (v === null ? 'not measured' : v ? 'yes' : 'no');
const CLASS_WORDS: Record<string, string> = { own: 'yours', competitor: 'a rival’s', third_party: 'a third party’s' };
/** A name's share of voice on a day, null when the day leaves it out: names are the upstream's, so only the day's own. */
const shareOn = (day: RivalsWindow['daily'][number], name: string) => ownValue(day.share_of_voice, name) ?? null;

function notProvidedLine(part: NotProvided, testid: string): Markup {
  return html`<p class="not-provided" data-testid="${testid}" data-reason="${part.reason}">${part.line}</p>`;
}

/** A section: its heading, then the part's content or its one line. */
function section<T>(id: string, title: string, part: Part<T>, body: (p: T) => Markup): Markup {
  return html`<section aria-labelledby="h-${id}" data-testid="${id}"><h2 id="h-${id}">${title}</h2>${part.provided ? body(part) : notProvidedLine(part, `${id}-not-provided`)}</section>`;
}

const table = (caption: string, head: Markup, rows: Markup[], testid: string) =>
  // Focusable and named: a table wider than the screen scrolls by keyboard too.
  html`<div class="table-scroll" tabindex="0" role="region" aria-label="${caption}"><table data-testid="${testid}"><caption>${caption}</caption><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;

// ---------------------------------------------------------------- rivals

const DASHES = ['', '6 4', '2 3', '10 3 2 3'];
const COLOURS = ['var(--accent-strong)', 'var(--bad)', 'var(--good)', 'var(--muted)'];
const DAILY = { width: 640, height: 220, left: 40, right: 12, top: 12, bottom: 28 } as const;

/** Share of voice per day, one line per name: the brand's thick and solid, each rival's dashed its own way. */
function dailyChart(w: RivalsWindow, brand: string, styleOf: (name: string) => number): Markup {
  const names = w.standings.map((s) => s.name);
  const values = w.daily.flatMap((d) => Object.values(d.share_of_voice).filter((v): v is number => v !== null));
  const hi = Math.min(100, Math.max(10, Math.ceil(Math.max(0, ...values) / 10) * 10));
  const x = (i: number) => DAILY.left + ((DAILY.width - DAILY.left - DAILY.right) * i) / Math.max(1, w.daily.length - 1);
  const y = (v: number) => DAILY.top + (DAILY.height - DAILY.top - DAILY.bottom) * (1 - v / hi);
  // One name's stroke: the same in both windows, the brand's thick and solid.
  const stroke = (name: string) => {
    const k = styleOf(name);
    return { colour: COLOURS[k % COLOURS.length], width: k === 0 ? 3 : 2, dash: DASHES[k % DASHES.length] };
  };
  const lines = names.map((name) => {
    let d = '';
    w.daily.forEach((day, i) => {
      const v = shareOn(day, name);
      if (v === null) return;
      const before = w.daily[i - 1];
      d += `${d === '' || !before || shareOn(before, name) === null ? 'M' : 'L'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
    });
    const { colour, width, dash } = stroke(name);
    return html`<path d="${d}" fill="none" stroke="${colour}" stroke-width="${width}" stroke-dasharray="${dash}"/>`;
  });
  const grid = [0, hi / 2, hi].map(
    (v) => html`<line class="grid" x1="${DAILY.left}" x2="${DAILY.width - DAILY.right}" y1="${y(v)}" y2="${y(v)}"/><text x="${DAILY.left - 6}" y="${y(v) + 4}" text-anchor="end">${v}%</text>`,
  );
  const first = w.daily[0]?.day;
  const last = w.daily.at(-1)?.day;
  const ends =
    first && last
      ? html`<text x="${DAILY.left}" y="${DAILY.height - 8}">${formatDay(first)}</text><text x="${DAILY.width - DAILY.right}" y="${DAILY.height - 8}" text-anchor="end">${formatDay(last)}</text>`
      : EMPTY;
  const legend = names.map((name) => {
    const { colour, width, dash } = stroke(name);
    return html`<li><svg width="28" height="10" aria-hidden="true"><line x1="0" x2="28" y1="5" y2="5" stroke="${colour}" stroke-width="${width}" stroke-dasharray="${dash}"/></svg>${name}</li>`;
  });
  return html`<figure><svg class="daily" viewBox="0 0 ${DAILY.width} ${DAILY.height}" role="img" aria-label="Share of voice per day of ${brand} and its top rivals, ${first ? formatDay(first) : ''} to ${last ? formatDay(last) : ''}; every figure is in the table below.">${grid}${lines}${ends}</svg><ul class="legend">${legend}</ul><figcaption>Share of voice per day, 0 to ${hi}%.</figcaption></figure>`;
}

function standingsTable(w: RivalsWindow): Markup {
  const rows = w.standings.map(
    (s) =>
      html`<tr${s.is_brand ? html` class="brand"` : null}><th scope="row">${s.name}${s.is_brand ? ' (you)' : ''}</th><td class="num">${formatPercent(s.share_of_voice)}</td><td class="num">${formatPercent(s.visibility)}</td><td class="num">${s.position === null ? '–' : s.position.toFixed(1)}</td><td class="num">${count(s.citations)}</td></tr>`,
  );
  return table(
    `${formatRange(w.period)}: share of voice is each name's part of all mentions; visibility the answers naming it.`,
    html`<th scope="col">Name</th><th scope="col" class="num">Share of voice</th><th scope="col" class="num">Visibility</th><th scope="col" class="num">Mean position</th><th scope="col" class="num">Citations</th>`,
    rows,
    `standings-${w.days}`,
  );
}

function perDayTable(w: RivalsWindow): Markup {
  const names = w.standings.map((s) => s.name);
  const rows = [...w.daily].reverse().map((d) => html`<tr><td class="nowrap">${formatDay(d.day)}</td>${names.map((n) => html`<td class="num">${formatPercent(shareOn(d, n))}</td>`)}</tr>`);
  return html`<details><summary>Every day's figures</summary>${table('Share of voice per day, newest first.', html`<th scope="col">Day</th>${names.map((n) => html`<th scope="col" class="num">${n}</th>`)}`, rows, `daily-${w.days}`)}</details>`;
}

function rivalsParts(v: RivalsView, links: ViewLinks): Markup[] {
  // Each name keeps its stroke across the windows: in the order names first appear (the brand first).
  const order = [...new Set(v.windows.flatMap((w) => (w.provided ? w.standings.map((s) => s.name) : [])))];
  const styleOf = (name: string) => order.indexOf(name);
  const windows = v.windows.map((w, i) => {
    const days = i === 0 ? 28 : 90;
    const table = VIEWS.rivals.tables[i]!;
    return html`${section(`window-${days}`, `Share of voice, last ${days} days`, w, (p) => html`${dailyChart(p, v.brand.name, styleOf)}${standingsTable(p)}${perDayTable(p)}`)}${csvRow(w.provided ? links.csv?.[table.id] : undefined, table.label)}`;
  });
  const h2h = section('head-to-heads', 'Head to head', v.head_to_heads, (p) => {
    if (p.rivals.length === 0) return html`<p>No rival was named in the last 28 days.</p>`;
    const rows = p.rivals.map(
      (r) =>
        html`<tr><th scope="row">${r.name}<span class="small"> ${r.domain}</span></th><td class="num">${formatPercent(r.rival_share)}</td><td class="num">${formatPercent(r.brand_share)}</td><td class="num">${count(r.questions_won)}</td><td>${r.topics_won.length === 0 ? '–' : r.topics_won.map((t) => `${t.name} (+${t.margin.toFixed(1)} pts)`).join(', ')}</td></tr>`,
    );
    return table(
      `${formatRange(p.period)}: the share of answers naming each, the questions more answers give the rival than you, and the topics it leads.`,
      html`<th scope="col">Rival</th><th scope="col" class="num">Its share</th><th scope="col" class="num">Yours</th><th scope="col" class="num">Questions it wins</th><th scope="col">Topics it leads</th>`,
      rows,
      'head-to-heads-table',
    );
  });
  return [...windows, h2h];
}

// ---------------------------------------------------------------- citations

function citationsParts(v: CitationsView, links: ViewLinks): Markup[] {
  const [sourcesTable, pagesTable] = VIEWS.citations.tables;
  const sources = section('sources', 'Who AI cites', v.sources, (p) => {
    const kinds = html`<ul class="counts" data-testid="by-class"><li><strong>${count(p.by_class.own)}</strong>yours</li><li><strong>${count(p.by_class.competitor)}</strong>rivals’</li><li><strong>${count(p.by_class.third_party)}</strong>third parties’</li></ul>`;
    const rows = p.domains.map(
      (d) =>
        html`<tr><th scope="row" class="url">${d.domain}</th><td>${ownValue(CLASS_WORDS, d.classification) ?? d.classification}${d.rival ? ` (${d.rival})` : ''}</td><td class="num">${count(d.citations)}</td><td class="num">${formatPercent(d.share)}</td></tr>`,
    );
    return html`<p class="small">${count(p.total_citations)} citations in AI answers, ${formatRange(p.period)}, by whose domain they are:</p>${kinds}${table('The most cited domains.', html`<th scope="col">Domain</th><th scope="col">Whose</th><th scope="col" class="num">Citations</th><th scope="col" class="num">Share</th>`, rows, 'sources-table')}`;
  });
  const pages = section('pages', 'Your pages AI cites', v.pages, (p) => {
    const rows = p.pages.map(
      (page) =>
        html`<tr><th scope="row" class="url"><a href="${page.url}">${page.title ?? page.url}</a></th><td class="num">${count(page.citations)}</td><td class="num">${count(page.previous_citations)}</td><td class="num ${page.change > 0 ? 'up' : page.change < 0 ? 'down' : 'flat'}">${signed(page.change)}</td></tr>`,
    );
    const uncited = p.uncited.map(
      (u) =>
        html`<li><p class="q"><a href="${u.url}">${u.title}</a></p><p class="small">${u.topic}: AI cites instead ${u.cited_instead.length === 0 ? 'nothing it names' : u.cited_instead.map((c) => `${c.domain} (${count(c.citations)})`).join(', ')}</p></li>`,
    );
    return html`<p class="small">${count(p.totals.citations)} citations of your pages, ${formatRange(p.period)}, against ${count(p.totals.previous_citations)} in ${formatRange(p.previous_period)} (${signed(p.totals.change)}).</p>${table('Your most cited pages against the period before.', html`<th scope="col">Page</th><th scope="col" class="num">Citations</th><th scope="col" class="num">Before</th><th scope="col" class="num">Change</th>`, rows, 'pages-table')}${csvRow(links.csv?.[pagesTable!.id], pagesTable!.label)}${uncited.length > 0 ? html`<h3>Pages no answer cited</h3><ol class="questions" data-testid="uncited">${uncited}</ol>` : EMPTY}`;
  });
  return [sources, csvRow(v.sources.provided ? links.csv?.[sourcesTable!.id] : undefined, sourcesTable!.label), pages];
}

// ---------------------------------------------------------------- perception

function perceptionParts(v: PerceptionView, links: ViewLinks): Markup[] {
  const [engines] = VIEWS.perception.tables;
  const said = (words: string, items: string[]) =>
    html`<p class="small"><strong>${words}:</strong></p>${items.length === 0 ? html`<p class="small">nothing said</p>` : html`<ul class="said">${items.map((t) => html`<li>${t}</li>`)}</ul>`}`;
  const body = section('perception', 'Per engine', v.perception, (p) => {
    const s = p.summary;
    const cards = p.engines.map(
      (e) =>
        html`<li data-engine="${e.engine}"><h3>${e.engine_label}</h3><p>Knows the brand: <strong>${yesNo(e.knows_brand)}</strong> · would recommend it: <strong>${yesNo(e.recommends)}</strong></p>${said('Gets right', e.gets_right)}${said('Gets wrong', e.gets_wrong)}</li>`,
    );
    return html`<p>${count(s.engines_knowing)} of ${count(s.engines_measured)} engines know the brand and ${count(s.engines_recommending)} would recommend it (${formatPercent(s.recommend_rate)}), ${formatRange(p.period)}.</p><ul class="engine-cards" data-testid="perception-engines">${cards}</ul>${csvRow(links.csv?.[engines!.id], engines!.label)}`;
  });
  return [body];
}

// ---------------------------------------------------------------- traffic

function trafficParts(v: TrafficView, links: ViewLinks): Markup[] {
  const [crawlersTable, visitorsTable] = VIEWS.traffic.tables;
  const crawlers = section('crawlers', 'AI crawlers reading your site', v.crawlers, (p) => {
    const rows = p.bots.map(
      (b) =>
        html`<tr><th scope="row">${b.bot}</th><td class="num">${count(b.hits)}</td><td class="num">${formatPercent(b.share)}</td><td class="num">${count(b.pages)}</td><td class="nowrap">${formatDay(b.last_seen)}</td></tr>`,
    );
    return html`<p class="small">${count(p.total_hits)} hits, ${formatRange(p.period)}; ${count(p.previous_hits)} the period before.</p>${table('Hits by crawler.', html`<th scope="col">Crawler</th><th scope="col" class="num">Hits</th><th scope="col" class="num">Share</th><th scope="col" class="num">Pages</th><th scope="col">Last seen</th>`, rows, 'crawlers-table')}${csvRow(links.csv?.[crawlersTable!.id], crawlersTable!.label)}`;
  });
  const visitors = section('visitors', 'Visitors AI assistants send', v.visitors, (p) => {
    const rows = p.assistants.map(
      (a) => html`<tr><th scope="row">${engineLabel(a.assistant)}</th><td class="num">${count(a.visits)}</td><td class="num">${formatPercent(a.share)}</td><td class="num">${count(a.pages)}</td></tr>`,
    );
    const pages = p.pages.map((page) => html`<tr><th scope="row" class="url">${shortUrl(page.url)}</th><td class="num">${count(page.visits)}</td></tr>`);
    return html`<p class="small">${count(p.total_visits)} visits, ${formatRange(p.period)}; ${count(p.previous_visits)} the period before (${signed(p.change)}).</p>${table('Visits by assistant.', html`<th scope="col">Assistant</th><th scope="col" class="num">Visits</th><th scope="col" class="num">Share</th><th scope="col" class="num">Pages</th>`, rows, 'visitors-table')}${csvRow(links.csv?.[visitorsTable!.id], visitorsTable!.label)}${pages.length > 0 ? table('The pages they land on most.', html`<th scope="col">Page</th><th scope="col" class="num">Visits</th>`, pages, 'visitor-pages-table') : EMPTY}`;
  });
  return [crawlers, visitors];
}

// ---------------------------------------------------------------- the page

const SIBLING_WORDS: Record<ViewKind | 'weekly' | 'history', string> = {
  weekly: 'Weekly report',
  history: 'History',
  rivals: VIEWS.rivals.title,
  citations: VIEWS.citations.title,
  perception: VIEWS.perception.title,
  traffic: VIEWS.traffic.title,
};

/** The brand's pages side by side, the one shown marked: on a page read with a key or in the account. */
export function siblingsNav(siblings: ViewLinks['siblings'], current: ViewKind | 'weekly' | 'history'): Markup {
  if (!siblings) return EMPTY;
  const items = (Object.keys(SIBLING_WORDS) as (keyof typeof SIBLING_WORDS)[]).flatMap((kind) => {
    const url = siblings[kind];
    if (kind === current) return [html`<li><span class="here" aria-current="page">${SIBLING_WORDS[kind]}</span></li>`];
    return url ? [html`<li><a href="${url}">${SIBLING_WORDS[kind]}</a></li>`] : [];
  });
  return html`<nav aria-label="This brand's pages"><ul class="markets" data-testid="views">${items}</ul></nav>`;
}

export function viewPage(view: View, links: ViewLinks): RenderedPage {
  const meta = VIEWS[view.kind];
  const parts: Markup[] = [
    html`<h1>${view.brand.name} in AI answers: ${meta.heading}</h1>`,
    html`<p class="period" data-testid="period">Market ${view.market.code.toUpperCase()} · read ${formatStamp(view.read_at)}</p>`,
    siblingsNav(links.siblings, view.kind),
    html`<p class="lead">${meta.says}</p>`,
  ];
  if (view.kind === 'rivals') parts.push(...rivalsParts(view, links));
  if (view.kind === 'citations') parts.push(...citationsParts(view, links));
  if (view.kind === 'perception') parts.push(...perceptionParts(view, links));
  if (view.kind === 'traffic') parts.push(...trafficParts(view, links));
  if (links.csvForm && VIEWS[view.kind].tables.some((t) => tableProvided(view, t))) parts.push(csvFormSection(links.csvForm));
  if (links.share)
    parts.push(
      html`<section aria-labelledby="h-share" data-testid="share"><h2 id="h-share">Share this page</h2><p class="small">Anyone with this link can read this page until ${formatStamp(links.share.expiresAt)}, without an API key${links.json ? html`; <a href="${links.json}">the same as JSON</a>` : EMPTY}.</p><div class="share-row"><label class="sr" for="share-url">Link to this page</label><input id="share-url" type="text" readonly value="${links.share.url}"><button type="button" id="copy-link" hidden>Copy link</button></div><p id="copy-status" class="small" role="status" aria-live="polite"></p></section>`,
    );
  const hasCsv = Object.keys(links.csv ?? {}).length > 0;
  return reportDocument({
    title: `${view.brand.name}: ${meta.heading} (${view.market.code.toUpperCase()})`,
    section: meta.heading,
    parts,
    style: trusted(VIEW_STYLE),
    copyButtons: hasCsv || Boolean(links.share),
    frame: links.frame,
    forms: Boolean(links.csvForm),
  });
}
