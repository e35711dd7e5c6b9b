/** Content coverage, cited sources, cited pages, one competitor and the activity feed, computed from stored runs and citations. */
import { type ActivityCategory, type CONTENT_ACTIONS, ENGINES, type Engine } from '../../contract/enums';
import { ApiError } from '../../contract/errors';
import { previousPeriod } from '../../contract/window';
import { classifyDomain, percent, round1 } from '../metrics';
import { CELL_ANSWERED, CELL_NAMING, domainCitations, domainClause, groupBy, ownDomains, ownPagesOf, questionsOf, rivalsOf, siteCitations, topCitedPerTopic, topicsOf } from '../queries';
import { windowedScopeOf, scopeOf } from './core';
import type { Implementation } from './context';

type ContentAction = (typeof CONTENT_ACTIONS)[number];

/** A run of `runs` that names the brand (DESIGN section 4). */
const NAMING = "state IN ('recommended', 'mentioned')";

/**
 * The content-gaps rule: no own page for the question → `write`; a page no
 * answer of the question cited in the window → `improve`; a cited page → `leave`.
 */
export const contentAction = (hasPage: boolean, cited: boolean): ContentAction => (!hasPage ? 'write' : cited ? 'leave' : 'improve');
const ACTION_ORDER: Record<ContentAction, number> = { write: 0, improve: 1, leave: 2 };

export const getContentGaps: Implementation<'getContentGaps'> = async (c) => {
  const own = domainClause(ownDomains(c.brand));
  const [questions, pages, citations, totals] = await Promise.all([
    questionsOf(c.db, c.market.id),
    ownPagesOf(c.db, c.market.id),
    c.db
      .prepare(`SELECT question_id, url, count(*) AS n FROM run_citations WHERE market_id = ? AND day BETWEEN ? AND ? AND ${own.sql} GROUP BY question_id, url`)
      .bind(c.market.id, c.period.from, c.period.to, ...own.binds)
      .all<{ question_id: number; url: string; n: number }>(),
    c.db
      .prepare(`SELECT question_id, sum(${CELL_ANSWERED}) AS answered, sum(${CELL_NAMING}) AS naming FROM cell_days WHERE market_id = ? AND day BETWEEN ? AND ? GROUP BY question_id`)
      .bind(c.market.id, c.period.from, c.period.to)
      .all<{ question_id: number; answered: number; naming: number }>(),
  ]);
  const rows = questions.map((q) => {
    const page = pages.find((p) => p.question_id === q.id) ?? null;
    const pageCitations = page ? (citations.results.find((r) => r.question_id === q.id && r.url === page.url)?.n ?? 0) : 0;
    const t = totals.results.find((r) => r.question_id === q.id);
    return {
      question_id: q.id,
      text: q.text,
      topic: { id: q.topic_id, name: q.topic_name },
      page: page ? { url: page.url, title: page.title } : null,
      has_page: page !== null,
      page_citations: pageCitations,
      cited: pageCitations > 0,
      visibility: percent(t?.naming ?? 0, t?.answered ?? 0),
      action: contentAction(page !== null, pageCitations > 0),
    };
  });
  rows.sort((a, b) => ACTION_ORDER[a.action] - ACTION_ORDER[b.action] || a.question_id - b.question_id);
  const count = (action: ContentAction) => rows.filter((r) => r.action === action).length;
  return { ...windowedScopeOf(c), counts: { write: count('write'), improve: count('improve'), leave: count('leave') }, questions: rows };
};

export const listSources: Implementation<'listSources'> = async (c) => {
  const [domains, rivals] = await Promise.all([domainCitations(c.db, c.market.id, c.period), rivalsOf(c.db, c.brand.id)]);
  const total = domains.reduce((sum, d) => sum + d.citations, 0);
  const byClass = { own: 0, competitor: 0, third_party: 0 };
  const sources = domains.map((d) => {
    const classification = classifyDomain(
      d.domain,
      ownDomains(c.brand),
      rivals.map((r) => r.domain),
    );
    byClass[classification] += d.citations;
    const rival = classification === 'competitor' ? rivals.find((r) => classifyDomain(d.domain, [], [r.domain]) === 'competitor') : undefined;
    return { domain: d.domain, citations: d.citations, share: percent(d.citations, total) ?? 0, classification, rival: rival?.name ?? null };
  });
  return { ...windowedScopeOf(c), total_citations: total, domains_cited: domains.length, by_class: byClass, sources: sources.slice(0, c.query.limit) };
};

/** How many alternatives `/pages` lists for an uncited topic page. */
const CITED_INSTEAD = 3;

export const listPages: Implementation<'listPages'> = async (c) => {
  const previous = previousPeriod(c.period);
  const own = ownDomains(c.brand);
  const [topics, pages, ownRows, instead, rivals] = await Promise.all([
    topicsOf(c.db, c.market.id),
    ownPagesOf(c.db, c.market.id),
    siteCitations(c.db, c.market.id, own, c.period, previous),
    topCitedPerTopic(c.db, c.market.id, c.period, { exceptDomains: own, perTopic: CITED_INSTEAD }),
    rivalsOf(c.db, c.brand.id),
  ]);
  const topicName = new Map(topics.map((t) => [t.id, t.name]));
  const topicRef = (id: number | null) => (id !== null && topicName.has(id) ? { id, name: topicName.get(id)! } : null);
  type Row = (typeof ownRows)[number];
  const totals = (rows: Row[]) => ({
    citations: rows.reduce((s, r) => s + r.citations, 0),
    previous_citations: rows.reduce((s, r) => s + r.previous_citations, 0),
  });
  const byEngine = (rows: Row[]) => ENGINES.map((engine) => ({ engine, ...totals(rows.filter((r) => r.engine === engine)) }));
  const byTopic = (rows: Row[]) => [...groupBy(rows, (r) => r.topic_id)].sort(([a], [b]) => a - b).map(([id, of]) => ({ id, name: topicName.get(id) ?? '', ...totals(of) }));

  const knownPage = new Map(pages.map((p) => [p.url, p]));
  const listed = [...groupBy(ownRows, (r) => r.url)]
    .map(([url, rows]) => {
      const known = knownPage.get(url);
      const { citations, previous_citations } = totals(rows);
      return {
        url,
        title: known?.title ?? null,
        topic: topicRef(known?.topic_id ?? null),
        citations,
        previous_citations,
        change: citations - previous_citations,
        by_engine: byEngine(rows),
        by_topic: byTopic(rows),
      };
    })
    .sort((a, b) => b.citations - a.citations || b.previous_citations - a.previous_citations || a.url.localeCompare(b.url));

  const citedNow = new Set(ownRows.filter((r) => r.citations > 0).map((r) => r.url));
  const rivalDomains = rivals.map((r) => r.domain);
  const insteadByTopic = groupBy(instead, (r) => r.topic_id);
  const uncited = pages
    .filter((p) => p.topic_id !== null && !citedNow.has(p.url))
    .map((p) => ({
      url: p.url,
      title: p.title,
      topic: topicRef(p.topic_id) ?? { id: p.topic_id as number, name: '' },
      cited_instead: (insteadByTopic.get(p.topic_id as number) ?? []).map((r) => ({
        url: r.url,
        domain: r.domain,
        classification: classifyDomain(r.domain, own, rivalDomains),
        citations: r.citations,
      })),
    }));

  const { citations: now, previous_citations: before } = totals(ownRows);
  return {
    ...windowedScopeOf(c),
    previous_period: previous,
    totals: { citations: now, previous_citations: before, change: now - before },
    pages: listed,
    by_engine: byEngine(ownRows),
    by_topic: byTopic(ownRows).map((t) => ({ ...t, change: t.citations - t.previous_citations })),
    uncited,
  };
};

/** The rival as AI writes it, compared case-insensitively; the path is already URL-decoded. */
export async function rivalNamed(db: D1Database, brandId: number, name: string) {
  const wanted = name.toLowerCase();
  const rival = (await rivalsOf(db, brandId)).find((r) => r.name.toLowerCase() === wanted);
  if (!rival) throw new ApiError('not_found', `No competitor named \`${name}\` is tracked for this brand (see the rivals of \`GET /topics\`).`);
  return rival;
}

export const getCompetitor: Implementation<'getCompetitor'> = async (c) => {
  const rival = await rivalNamed(c.db, c.brand.id, c.path.name);
  const window = [c.market.id, c.period.from, c.period.to] as const;
  const rivalSite = domainClause([rival.domain]);
  const [questions, runCells, rivalCells, pages, knownPages] = await Promise.all([
    questionsOf(c.db, c.market.id),
    c.db
      .prepare(
        `SELECT question_id, engine, sum(${CELL_ANSWERED}) AS answered, sum(${CELL_NAMING}) AS naming FROM cell_days
          WHERE market_id = ? AND day BETWEEN ? AND ? GROUP BY question_id, engine`,
      )
      .bind(...window)
      .all<{ question_id: number; engine: Engine; answered: number; naming: number }>(),
    // `latest_unnamed` sorts like (ran_at, id): the latest run naming the rival and not the brand.
    c.db
      .prepare(
        `SELECT rr.question_id, rr.engine, count(*) AS runs, sum(r.${NAMING}) AS both_named,
                max(CASE WHEN NOT r.${NAMING} THEN r.ran_at || '#' || printf('%015d', r.id) END) AS latest_unnamed
           FROM run_rivals rr JOIN runs r ON r.id = rr.run_id
          WHERE rr.market_id = ? AND rr.day BETWEEN ? AND ? AND rr.rival_id = ? GROUP BY rr.question_id, rr.engine`,
      )
      .bind(...window, rival.id)
      .all<{ question_id: number; engine: Engine; runs: number; both_named: number; latest_unnamed: string | null }>(),
    c.db
      .prepare(`SELECT url, sum(citations) AS citations FROM citation_days WHERE market_id = ? AND day BETWEEN ? AND ? AND ${rivalSite.sql} GROUP BY url ORDER BY citations DESC, url`)
      .bind(...window, ...rivalSite.binds)
      .all<{ url: string; citations: number }>(),
    c.db.prepare('SELECT url, title FROM pages WHERE market_id = ? AND rival_id = ?').bind(c.market.id, rival.id).all<{ url: string; title: string }>(),
  ]);

  const runsByQuestion = groupBy(runCells.results, (r) => r.question_id);
  const rivalByQuestion = groupBy(rivalCells.results, (r) => r.question_id);
  const perQuestion = (id: number) => {
    const cells = runsByQuestion.get(id) ?? [];
    const rivalOf = rivalByQuestion.get(id) ?? [];
    return {
      answered: cells.reduce((s, r) => s + r.answered, 0),
      naming: cells.reduce((s, r) => s + r.naming, 0),
      rival: rivalOf.reduce((s, r) => s + r.runs, 0),
      // Engines that named the rival and never the brand for this question.
      engines: ENGINES.filter((e) => rivalOf.some((r) => r.engine === e) && (cells.find((r) => r.engine === e)?.naming ?? 0) === 0),
    };
  };
  const figures = new Map(questions.map((q) => [q.id, perQuestion(q.id)]));

  const topicIds = [...new Set(questions.map((q) => q.topic_id))];
  const topicsWon = topicIds
    .map((id) => {
      const of = questions.filter((q) => q.topic_id === id).map((q) => figures.get(q.id)!);
      const answered = of.reduce((s, f) => s + f.answered, 0);
      const rivalShare = percent(
        of.reduce((s, f) => s + f.rival, 0),
        answered,
      );
      const brandShare = percent(
        of.reduce((s, f) => s + f.naming, 0),
        answered,
      );
      return { id, name: questions.find((q) => q.topic_id === id)!.topic_name, rival_share: rivalShare ?? 0, brand_share: brandShare ?? 0, margin: round1((rivalShare ?? 0) - (brandShare ?? 0)) };
    })
    .filter((t) => t.margin > 0)
    .sort((a, b) => b.margin - a.margin || a.id - b.id);

  const won = questions.filter((q) => figures.get(q.id)!.rival > figures.get(q.id)!.naming);
  // What AI said: only the answers of the questions won are read.
  const quoteIds = won
    .map((q) =>
      (rivalByQuestion.get(q.id) ?? [])
        .map((r) => r.latest_unnamed)
        .filter((k): k is string => k !== null)
        .sort()
        .at(-1),
    )
    .filter((k): k is string => k !== undefined)
    .map((k) => Number(k.slice(k.lastIndexOf('#') + 1)));
  const { results: quotes } = quoteIds.length
    ? await c.db
        .prepare('SELECT id, question_id, engine, ran_at, answer FROM runs WHERE id IN (SELECT value FROM json_each(?))')
        .bind(JSON.stringify(quoteIds))
        .all<{ id: number; question_id: number; engine: Engine; ran_at: string; answer: string }>()
    : { results: [] };
  const questionsWon = won
    .map((q) => {
      const f = figures.get(q.id)!;
      const quote = quotes.find((s) => s.question_id === q.id);
      return {
        question_id: q.id,
        text: q.text,
        topic_id: q.topic_id,
        rival_runs: f.rival,
        brand_runs: f.naming,
        answered_runs: f.answered,
        engines: f.engines,
        what_ai_said: quote ? { engine: quote.engine, ran_at: quote.ran_at, text: quote.answer } : null,
      };
    })
    .sort((a, b) => b.rival_runs - b.brand_runs - (a.rival_runs - a.brand_runs) || a.question_id - b.question_id);

  const answered = runCells.results.reduce((s, r) => s + r.answered, 0);
  return {
    ...windowedScopeOf(c),
    competitor: { name: rival.name, domain: rival.domain },
    overall: {
      answered_runs: answered,
      rival_share: percent(
        rivalCells.results.reduce((s, r) => s + r.runs, 0),
        answered,
      ),
      brand_share: percent(
        runCells.results.reduce((s, r) => s + r.naming, 0),
        answered,
      ),
      both_named: rivalCells.results.reduce((s, r) => s + r.both_named, 0),
    },
    topics_won: topicsWon,
    questions_won: questionsWon,
    cited_pages: pages.results.map((p) => ({ url: p.url, title: knownPages.results.find((k) => k.url === p.url)?.title ?? null, citations: p.citations })),
  };
};

export const listActivity: Implementation<'listActivity'> = async (c) => {
  const category = c.query.category;
  const { results } = await c.db
    .prepare(
      `SELECT id, category, title, detail, occurred_at FROM activity WHERE market_id = ?${category ? ' AND category = ?' : ''}
        ORDER BY occurred_at DESC, id DESC LIMIT ?`,
    )
    .bind(...(category ? [c.market.id, category, c.query.limit] : [c.market.id, c.query.limit]))
    .all<{ id: number; category: ActivityCategory; title: string; detail: string; occurred_at: string }>();
  return { ...scopeOf(c), entries: results };
};
