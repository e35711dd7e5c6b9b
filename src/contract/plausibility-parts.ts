/**
 * The checks of the rules of src/contract/plausibility.ts (the table,
 * `RULES`, is there) that hold a figure against what it is made of: a
 * readiness score against its weighted signals, a topic's count of questions
 * against those it lists, traffic against its bots or assistants and pages,
 * and the days with traffic against the window.
 */
import { checkPartsAddUp } from './plausibility-checks';
import { at, DAY, dayOf, figure, type Finding, isNum, one, ROUNDING, whole } from './plausibility-words';
import { valuesAtPath } from './paths';
import type { Rule } from './plausibility-rule';

/** The readiness score is the mean of its signals' values weighed by their weights (null with no signal). */
export function checkReadinessWeighted(body: unknown, fields: readonly string[]): Finding[] {
  const score = at(body, fields[0]!);
  const [values, weights] = [valuesAtPath(body, fields[1]!), valuesAtPath(body, fields[2]!)];
  if (values.length === 0 || values.length !== weights.length || ![...values, ...weights].every(isNum)) return [];
  const total = (weights as number[]).reduce((s, w) => s + w, 0);
  if (total === 0) return [];
  const mean = (values as number[]).reduce((s, v, i) => s + v * (weights[i] as number), 0) / total;
  if (isNum(score) && Math.abs(score - mean) <= ROUNDING) return [];
  return [
    {
      fields: [fields[0]!],
      values: { [fields[0]!]: score, signals: values.length },
      message: `${fields[0]} ${figure(score)}, but its ${values.length} signals weigh in at ${one(mean)}: is \`${fields[0]}\` read from the right field, as a percentage?`,
    },
  ];
}

/** A topic in full lists every one of its questions: as many as its count of questions. */
export function checkQuestionsListed(body: unknown, fields: readonly string[]): Finding[] {
  const [count, listed] = [at(body, fields[0]!), valuesAtPath(body, 'questions')[0]];
  if (!isNum(count) || !Array.isArray(listed) || count === listed.length) return [];
  return [
    {
      fields: [fields[0]!],
      values: { [fields[0]!]: count, questions: listed.length },
      message: `${fields[0]} ${whole(count)}, but the topic lists ${whole(listed.length)} questions: is \`${fields[0]}\` read from the right field?`,
    },
  ];
}

/** `[total, by agent, by page, a page's by agent]`: the total is its agents' and its pages' counts, a page's its agents'. */
export const checkTrafficAddsUp = (body: unknown, fields: readonly string[]): Finding[] => {
  const [total, byAgent, byPage, pageByAgent] = fields as [string, string, string, string];
  return checkPartsAddUp([
    [total, byAgent],
    [total, byPage],
    [byPage, pageByAgent],
  ])(body);
};

/** The days with traffic are at most the window's days and the total's count, and none exactly when there is none. */
export function checkDaysWithTraffic(body: unknown, fields: readonly string[]): Finding[] {
  const [days, total] = [at(body, fields[0]!), at(body, fields[1]!)];
  const [from, to] = [dayOf(at(body, fields[2]!)), dayOf(at(body, fields[3]!))];
  if (!isNum(days) || !isNum(total)) return [];
  const window = Number.isNaN(from) || Number.isNaN(to) ? Number.POSITIVE_INFINITY : (to - from) / DAY + 1;
  if (days <= window && days <= total && (days === 0) === (total === 0)) return [];
  const why = days > window ? `the window has ${whole(window)} days` : `the total is ${whole(total)}`;
  return [{ fields: [fields[0]!, fields[1]!], values: { [fields[0]!]: days, [fields[1]!]: total }, message: `${fields[0]} is ${whole(days)}, but ${why}: are they read from the right fields?` }];
}

/**
 * A topic's head-to-heads, `[both named, brand only, rival only, brand ahead, rival ahead]` per rival: the brand's
 * runs (named with the rival or without) are the same for every rival, the runs where one is ahead are runs naming
 * both, and the rivals come most named first (their runs with the brand or without).
 */
export function checkHeadToHeads(body: unknown, fields: readonly string[]): Finding[] {
  const [both, brandOnly, rivalOnly, brandAhead, rivalAhead] = fields.map((f) => f.split('.').at(-1)!) as [string, string, string, string, string];
  const rows = valuesAtPath(body, fields[0]!.slice(0, fields[0]!.lastIndexOf('.'))).filter(
    (r): r is Record<string, number> => typeof r === 'object' && r !== null && [both, brandOnly, rivalOnly, brandAhead, rivalAhead].every((k) => isNum((r as Record<string, unknown>)[k])),
  );
  const found = (blamed: readonly string[], words: string): Finding[] => [
    { fields: [...blamed], values: { rivals: rows.length }, message: `${words}: are the head-to-heads read from the right fields?` },
  ];
  const brandRuns = new Set(rows.map((r) => r[both]! + r[brandOnly]!));
  if (brandRuns.size > 1) return found([fields[0]!, fields[1]!], `the brand's runs (named with the rival or without) differ by rival: ${[...brandRuns].slice(0, 3).map(whole).join(', ')}`);
  const ahead = rows.filter((r) => r[brandAhead]! + r[rivalAhead]! > r[both]!).length;
  if (ahead > 0) return found([fields[3]!, fields[4]!, fields[0]!], `${whole(ahead)} rivals are ahead or behind in more runs than name both`);
  const runs = rows.map((r) => r[both]! + r[rivalOnly]!);
  if (runs.some((n, i) => i > 0 && n > runs[i - 1]!)) return found([fields[2]!, fields[0]!], 'the rivals are not listed most named first (their runs with the brand or without)');
  return [];
}

/** `[measured, knowing, recommending, engines' knows, engines' recommends]`: the summary counts the engines with a verdict, those that know the brand, and those that would recommend it. */
export function checkEnginesCounted(body: unknown, fields: readonly string[]): Finding[] {
  const [knows, recommends] = [valuesAtPath(body, fields[3]!), valuesAtPath(body, fields[4]!)];
  if (knows.length === 0 || knows.length !== recommends.length) return [];
  const counted = [knows.filter((v) => v !== null && v !== undefined).length, knows.filter((v) => v === true).length, recommends.filter((v) => v === true).length];
  return counted.flatMap((count, i) => {
    const said = at(body, fields[i]!);
    if (!isNum(said) || said === count) return [];
    return [
      {
        fields: [fields[i]!],
        values: { [fields[i]!]: said, engines: count },
        message: `${fields[i]} is ${whole(said)}, but ${whole(count)} of the ${whole(knows.length)} engines listed ${['have a verdict', 'know the brand', 'would recommend it'][i]}: are they read from the right fields?`,
      },
    ];
  });
}

/**
 * `[rank, score, its rivals' shares]` of a topic (`topics[]` or `topic`): the brand's place among itself and its
 * rivals by share is one more than the rivals with a larger share, give or take those its score ties (both rounded).
 * The list may stop short: the rank may be past it only where its score is below the least share listed.
 */
export function checkRankAmongRivals(body: unknown, fields: readonly string[]): Finding[] {
  const [rankKey, scoreKey] = [fields[0]!.split('.').at(-1)!, fields[1]!.split('.').at(-1)!];
  const holder = fields[0]!.slice(0, fields[0]!.lastIndexOf('.'));
  const [rivalsKey, shareKey] = fields[2]!.slice(holder.length + 1).split('[].') as [string, string];
  const items = holder.endsWith('[]') ? ((at(body, holder.slice(0, -2)) as unknown[] | undefined) ?? []) : [at(body, holder)];
  return items.flatMap((item, i) => {
    if (typeof item !== 'object' || item === null) return [];
    const { [rankKey]: rank, [scoreKey]: score, [rivalsKey]: rivals } = item as Record<string, unknown>;
    if (!isNum(rank) || !isNum(score) || !Array.isArray(rivals)) return [];
    const shares = rivals.map((r) => (r as Record<string, unknown> | null)?.[shareKey]);
    if (!shares.every(isNum)) return [];
    const above = shares.filter((s) => s > score + ROUNDING).length;
    const tied = shares.filter((s) => Math.abs(s - score) <= ROUNDING).length;
    const pastTheList = shares.length > 0 && score < Math.min(...shares) - ROUNDING;
    if (rank >= 1 + above && (pastTheList || rank <= 1 + above + tied)) return [];
    const path = holder.endsWith('[]') ? `${holder.slice(0, -2)}[${i}]` : holder;
    return [
      {
        fields: [fields[0]!],
        values: { [`${path}.${rankKey}`]: rank, [`${path}.${scoreKey}`]: score, rivals_above: above },
        message: `${path}.${rankKey} is ${whole(rank)}, but ${whole(above)} of the ${whole(shares.length)} rivals listed have a larger share than its score ${figure(score)}: the rank is one more than those; is it read from the right field?`,
      },
    ];
  });
}

/**
 * `[as of, knows, recommends, its weeks' starts, their knows, their recommends]`: an engine's verdict is its week
 * `as_of`, the latest of its history overlapping the period (an engine with no week measured says nothing).
 */
export function checkVerdictIsLatestWeek(body: unknown, fields: readonly string[]): Finding[] {
  const [asOf, knows, recommends, start, weekKnows, weekRecommends] = fields.map((f) => f.split('.').at(-1)!) as [string, string, string, string, string, string];
  const history = fields[3]!.split('.').at(-2)!.replace(/\[\]$/, '');
  const engines = valuesAtPath(body, fields[0]!.slice(0, fields[0]!.indexOf('[]'))).flat() as unknown[];
  let differ = 0;
  for (const engine of engines) {
    if (typeof engine !== 'object' || engine === null) continue;
    const e = engine as Record<string, unknown>;
    const weeks = e[history];
    if (typeof e[asOf] !== 'string' || !Array.isArray(weeks)) continue;
    const week = weeks.find((w): w is Record<string, unknown> => typeof w === 'object' && w !== null && (w as Record<string, unknown>)[start] === e[asOf]);
    if (!week) continue;
    if (week[weekKnows] !== e[knows] || week[weekRecommends] !== e[recommends]) differ++;
  }
  if (differ === 0) return [];
  return [
    {
      fields: [fields[4]!, fields[5]!],
      values: { engines: differ },
      message: `${whole(differ)} engines' verdict (knows the brand, would recommend it) differs from their latest week's: are the weeks' verdicts read from the right fields?`,
    },
  ];
}

/** The rules of figures against their parts, in the table (src/contract/plausibility.ts `RULES`). */
export const PART_RULES: readonly Rule[] = [
  {
    id: 'readiness_is_weighted_signals',
    // The readiness score is the mean of its signals' values weighed by their weights (null with no signal).
    reads: { getOverview: ['readiness.score', 'readiness.signals[].value', 'readiness.signals[].weight'] },
    pins: ['readiness.score'],
    check: checkReadinessWeighted,
  },
  {
    id: 'questions_listed',
    // A topic in full lists every one of its questions: as many as its count of questions.
    reads: { getTopic: ['topic.questions', 'questions[].id'] },
    pins: ['topic.questions'],
    check: checkQuestionsListed,
  },
  {
    id: 'traffic_adds_up',
    // Traffic in the window is its bots' (assistants') and its pages' counts, a page's its bots'.
    reads: {
      getAiCrawlers: ['total_hits', 'bots[].hits', 'pages[].hits', 'pages[].bots[].hits'],
      getAiVisitors: ['total_visits', 'assistants[].visits', 'pages[].visits', 'pages[].assistants[].visits'],
    },
    pins: ['total_hits', 'total_visits'],
    check: checkTrafficAddsUp,
  },
  {
    id: 'days_with_traffic',
    // The days with crawler hits are at most the window's days and the hits, and none exactly when there is none.
    reads: { getAiCrawlers: ['days_with_hits', 'total_hits', 'period.from', 'period.to'] },
    pins: ['days_with_hits'],
    check: checkDaysWithTraffic,
  },
  {
    id: 'head_to_heads_partition',
    // Per rival, the brand's runs are both named plus the brand only (the same for every rival), those with one ahead name both, rivals most named first.
    reads: { getTopic: ['head_to_heads[].both_named', 'head_to_heads[].brand_only', 'head_to_heads[].rival_only', 'head_to_heads[].brand_ahead', 'head_to_heads[].rival_ahead'] },
    check: checkHeadToHeads,
  },
  {
    id: 'engines_counted',
    // The perception summary counts the engines listed: those with a verdict, those that know the brand, those that would recommend it.
    reads: {
      getBrandPerception: ['summary.engines_measured', 'summary.engines_knowing', 'summary.engines_recommending', 'engines[].knows_brand', 'engines[].recommends'],
      getOverview: ['perception.engines_measured', 'perception.engines_knowing', 'perception.engines_recommending', 'perception.engines[].knows_brand', 'perception.engines[].recommends'],
    },
    pins: ['summary.engines_measured', 'summary.engines_knowing', 'summary.engines_recommending', 'perception.engines_measured', 'perception.engines_knowing', 'perception.engines_recommending'],
    check: checkEnginesCounted,
  },
  {
    id: 'verdict_is_its_latest_week',
    // An engine's verdict (knows the brand, would recommend it) is that of its week `as_of`, the latest of its history overlapping the period.
    reads: {
      getBrandPerception: ['engines[].as_of', 'engines[].knows_brand', 'engines[].recommends', 'engines[].history[].week_start', 'engines[].history[].knows_brand', 'engines[].history[].recommends'],
    },
    pins: ['engines[].history[].knows_brand', 'engines[].history[].recommends'],
    check: checkVerdictIsLatestWeek,
  },
  {
    id: 'rank_among_rivals',
    // A topic's rank is the brand's place among itself and its rivals by share: one more than the rivals listed above its score.
    reads: {
      listTopics: ['topics[].rank', 'topics[].score', 'topics[].rivals[].share'],
      getTopic: ['topic.rank', 'topic.score', 'topic.rivals[].share'],
    },
    pins: ['topics[].rank', 'topic.rank'],
    check: checkRankAmongRivals,
  },
];
