/**
 * The rules of src/contract/plausibility.ts (the table, `RULES`, is there)
 * that hold a count or a lead against the list it describes: a count of every
 * item covers those listed, a rival's questions are those it leads, totals
 * cover the rows listed. Each follows from an operation's description in
 * src/contract/operations.ts.
 */
import { askedLimit, at, type Finding, isNum, shareOfCounts, whole } from './plausibility-words';
import { valuesAtPath } from './paths';
import type { Rule, RuleContext } from './plausibility-rule';
import type { OperationId } from './operations';

type Row = Record<string, unknown>;
const rowsAt = (body: unknown, path: string): Row[] => (valuesAtPath(body, path)[0] as unknown[] | undefined)?.filter((r): r is Row => typeof r === 'object' && r !== null) ?? [];

/**
 * `[count, flagged count, each item's flag]`: a count of every item (`threads_total`) is at least the items listed, its
 * flagged part (`threads_cited`) at most the count and at least the flagged items listed, and the rest at least the
 * unflagged items listed; each exactly so where fewer items are listed than the read's `limit` (every item is).
 * Per holder of the list: each topic, or the body.
 */
export function checkCountsCoverList(body: unknown, fields: readonly string[], operation: OperationId, context: RuleContext): Finding[] {
  const [count, part, flag] = fields as [string, string, string];
  const list = flag.slice(0, flag.lastIndexOf('[]'));
  const prefix = list.includes('[].') ? list.slice(0, list.lastIndexOf('[].') + 3) : '';
  const holders = prefix ? rowsAt(body, prefix.slice(0, -3)) : [body as Row];
  const relative = (path: string) => path.slice(prefix.length);
  const flagKey = flag.split('.').at(-1)!;
  const limit = askedLimit(operation, context);
  let broken = 0;
  for (const holder of holders) {
    const [all, flagged, items] = [at(holder, relative(count)), at(holder, relative(part)), rowsAt(holder, relative(list))];
    if (!isNum(all) || !isNum(flagged)) continue;
    const flags = items.map((item) => item[flagKey]);
    const known = flags.every((f) => typeof f === 'boolean');
    const [yes, no] = known ? [flags.filter((f) => f).length, flags.filter((f) => !f).length] : [0, 0];
    const every = limit !== undefined && items.length < limit;
    if (all < items.length || flagged > all || flagged < yes || all - flagged < no || (every && (all !== items.length || (known && flagged !== yes)))) broken++;
  }
  if (broken === 0) return [];
  return [
    {
      fields: [count, part],
      values: { holders: broken },
      message: `${count} and ${part} do not cover the items listed in ${whole(broken)} place${broken === 1 ? '' : 's'} (the count at least those listed, all of them when fewer than the limit are, its part at most the count): are they read from the right fields?`,
    },
  ];
}

/** `[rival's runs, brand's runs]` of each question the rival wins: more runs name the rival than the brand, largest lead first. */
export function checkRivalLeads(body: unknown, fields: readonly string[]): Finding[] {
  const [rival, brand] = fields.map((f) => f.split('.').at(-1)!) as [string, string];
  const leads = rowsAt(body, fields[0]!.slice(0, fields[0]!.indexOf('[]')))
    .filter((q) => isNum(q[rival]) && isNum(q[brand]))
    .map((q) => (q[rival] as number) - (q[brand] as number));
  const why = leads.some((lead) => lead <= 0)
    ? 'a question the rival wins has as many runs naming the brand, or more'
    : leads.some((lead, i) => i > 0 && lead > leads[i - 1]!)
      ? 'the questions are not listed largest lead first'
      : undefined;
  if (why === undefined) return [];
  return [{ fields: [...fields], values: { questions: leads.length }, message: `${why}: are \`${fields[0]}\` and \`${fields[1]}\` read from the right fields?` }];
}

/** `[total clicks, total impressions, rows' clicks, rows' impressions, rows' CTR]`: totals cover the rows listed, no row has more clicks than impressions, and its CTR is clicks over impressions. */
export function checkSearchTotals(body: unknown, fields: readonly string[], operation: OperationId, context: RuleContext): Finding[] {
  const [clicks, impressions, rowClicks, rowImpressions, rowCtr] = fields as [string, string, string, string, string];
  const [key, seen, ctr] = [rowClicks, rowImpressions, rowCtr].map((f) => f.split('.').at(-1)!) as [string, string, string];
  const rows = rowsAt(body, rowClicks.slice(0, rowClicks.indexOf('[]'))).filter((r) => isNum(r[key]) && isNum(r[seen]));
  const [totalClicks, totalSeen] = [at(body, clicks), at(body, impressions)];
  const sum = (k: string) => rows.reduce((s, r) => s + (r[k] as number), 0);
  // Every row listed (fewer than the limit): the totals are their sums.
  const limit = askedLimit(operation, context);
  const every = limit !== undefined && rows.length < limit;
  const covers = (total: number, of: number) => (every ? total === of : total >= of);
  if (isNum(totalClicks) && isNum(totalSeen) && (totalClicks > totalSeen || !covers(totalClicks, sum(key)) || !covers(totalSeen, sum(seen))))
    return [
      {
        fields: [clicks, impressions],
        values: { [clicks]: totalClicks, [impressions]: totalSeen },
        message: `${clicks} ${whole(totalClicks)} and ${impressions} ${whole(totalSeen)} do not cover the rows listed: are they read from the right fields?`,
      },
    ];
  const over = rows.filter((r) => (r[key] as number) > (r[seen] as number)).length;
  if (over > 0)
    return [
      {
        fields: [rowClicks, rowImpressions],
        values: { rows: over },
        message: `${whole(over)} rows have more clicks than impressions: are \`${rowClicks}\` and \`${rowImpressions}\` read from the right fields?`,
      },
    ];
  for (const r of rows) if (r[ctr] !== undefined) for (const found of shareOfCounts([rowCtr, rowClicks, rowImpressions], r[ctr], r[key], r[seen], 'impressions were clicked')) return [found];
  return [];
}

/**
 * `[total, domains, own, competitor, third party, each source's citations, class, share]`: the classes' counts add up
 * to the total; the total, each class and the domains cited cover the sources listed (all of them, exactly, when every
 * domain is listed); a source's share is its citations over the total.
 */
export function checkSourcesAddUp(body: unknown, fields: readonly string[], operation: OperationId, context: RuleContext): Finding[] {
  const [total, domains, own, competitor, thirdParty, citationsPath, classificationPath, sharePath] = fields as [string, string, string, string, string, string, string, string];
  const classes = [own, competitor, thirdParty];
  const [citations, classification, share] = [citationsPath, classificationPath, sharePath].map((f) => f.split('.').at(-1)!) as [string, string, string];
  const [all, cited, counts] = [at(body, total), at(body, domains), classes.map((f) => at(body, f))];
  const sources = rowsAt(body, citationsPath.slice(0, citationsPath.indexOf('[]'))).filter((r) => isNum(r[citations]));
  const found = (blamed: readonly string[], words: string): Finding[] => [{ fields: [...blamed], values: { sources: sources.length }, message: `${words}: are they read from the right fields?` }];
  if (isNum(all) && counts.every(isNum) && (counts as number[]).reduce((sum, n) => sum + n, 0) !== all)
    return found([total, ...classes], `${classes.join(', ')} do not add up to ${total} ${whole(all)}`);
  // Every domain listed: as many as it counts, or fewer than the read's limit.
  const limit = askedLimit(operation, context);
  const complete = (isNum(cited) && cited === sources.length) || (limit !== undefined && sources.length < limit);
  const covers = (count: unknown, listed: number) => !isNum(count) || (complete ? count === listed : count >= listed);
  const listed = sources.reduce((sum, r) => sum + (r[citations] as number), 0);
  if (!covers(all, listed)) return found([total], `${total} ${whole(all as number)} does not cover the ${whole(listed)} citations of the sources listed`);
  if (isNum(cited) && (complete ? cited !== sources.length : cited < sources.length))
    return found([domains], `${domains} ${whole(cited)} is not the ${whole(sources.length)} sources listed${complete ? ' (every domain, fewer than the limit)' : ''}`);
  const names = classes.map((f) => f.split('.').at(-1)!);
  const classed = sources.filter((r) => names.includes(r[classification] as string));
  if (classed.length === sources.length)
    for (const [i, name] of names.entries()) {
      const of = classed.filter((r) => r[classification] === name).reduce((sum, r) => sum + (r[citations] as number), 0);
      if (!covers(counts[i], of)) return found([classes[i]!], `${classes[i]} ${whole(counts[i] as number)} does not cover the ${whole(of)} citations of the ${name} sources listed`);
    }
  if (isNum(all))
    for (const r of sources) if (r[share] !== undefined) for (const f of shareOfCounts([sharePath, citationsPath, total], r[share], r[citations], all, 'citations are of this source')) return [f];
  return [];
}

/** The rules of counts and leads against their lists, in the table (src/contract/plausibility.ts `RULES`). */
export const LIST_RULES: readonly Rule[] = [
  {
    id: 'counts_cover_the_list',
    // A count of every item is at least the items listed, its flagged part at most the count and at least the flagged items listed.
    reads: {
      getForumSignals: ['topics[].threads_total', 'topics[].threads_cited', 'topics[].threads[].cited'],
      getSearchPerformance: ['totals.rows', 'totals.search_only', 'rows[].search_only'],
    },
    pins: ['topics[].threads_total', 'topics[].threads_cited', 'totals.rows', 'totals.search_only'],
    check: checkCountsCoverList,
  },
  {
    id: 'sources_add_up',
    // The classes' citations add up to the total; the total, each class and the domains cited cover the sources listed; a source's share is of the total.
    reads: {
      listSources: ['total_citations', 'domains_cited', 'by_class.own', 'by_class.competitor', 'by_class.third_party', 'sources[].citations', 'sources[].classification', 'sources[].share'],
    },
    pins: ['total_citations', 'domains_cited', 'by_class.own', 'by_class.competitor', 'by_class.third_party', 'sources[].share'],
    check: checkSourcesAddUp,
  },
  {
    id: 'rival_leads_its_questions',
    // The questions a rival wins are those more runs name it in than the brand, largest lead first.
    reads: { getCompetitor: ['questions_won[].rival_runs', 'questions_won[].brand_runs'] },
    pins: ['questions_won[].rival_runs', 'questions_won[].brand_runs'],
    check: checkRivalLeads,
  },
  {
    id: 'search_totals_cover_rows',
    // Search totals cover every row (at least those listed), clicks are at most impressions, and a row's CTR is its clicks over its impressions.
    reads: { getSearchPerformance: ['totals.clicks', 'totals.impressions', 'rows[].clicks', 'rows[].impressions', 'rows[].ctr'] },
    pins: ['totals.clicks', 'totals.impressions', 'rows[].ctr'],
    check: checkSearchTotals,
  },
];
