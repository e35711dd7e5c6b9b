/**
 * The checks of the rules of src/contract/plausibility.ts that judge more than
 * one field against another: a question's outcome against its engines, the
 * moved engines' states against the outcome, a rate against its runs, the
 * fixed windows against the clock, engine values against our names; and
 * those that judge each field alone (its range, its unit, a whole count). The
 * table (`RULES`) is there; these are its `check`s, each returning what it
 * finds with the fields it blames and a message that counts right.
 */
import { oursUnderVendor } from './enum-spelling';
import { ENGINES, NAMING_STATES, OUTCOMES, STATES } from './enums';
import type { OperationId } from './operations';
import { listOf, valuesAtPath } from './paths';
import { at, DAY, dayOf, type Finding, isNum, present, some, whole } from './plausibility-words';

const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);
const names = (state: unknown) => typeof state === 'string' && (NAMING_STATES as readonly string[]).includes(state);
const isOutcome = (v: unknown): v is (typeof OUTCOMES)[number] => typeof v === 'string' && (OUTCOMES as readonly string[]).includes(v);
/** +1 won, -1 lost, 0 held. */
const signOf = (outcome: (typeof OUTCOMES)[number]) => (outcome === 'won' ? 1 : outcome === 'lost' ? -1 : 0);
const outcomeOf = (difference: number) => (difference > 0 ? 'won' : difference < 0 ? 'lost' : 'held');
const questionName = (q: unknown) => (isNum(at(q, 'question_id')) ? `question ${at(q, 'question_id')}` : typeof at(q, 'text') === 'string' ? `“${String(at(q, 'text')).slice(0, 60)}”` : 'a question');

/**
 * One of ours inside an open value, as a vendor writes it: our value's words at the start or the end of the
 * value's (`openai-chatgpt`, `anthropic-claude`, `perplexity-sonar` → `perplexity`). Undefined for one of ours
 * itself, or for none. Discovery maps such a value; the rules call one left unmapped a split engine.
 */

/**
 * What a question's moved engines say: how many more of them name the brand now than before (their `before` and
 * `now` states). Undefined when no move carries a state (a body without them says nothing).
 */
function movedNet(question: unknown): number | undefined {
  const moves = valuesAtPath(question, 'moved[]').filter((m) => at(m, 'before') !== undefined || at(m, 'now') !== undefined);
  if (moves.length === 0) return undefined;
  return moves.reduce<number>((sum, m) => sum + Number(names(at(m, 'now'))) - Number(names(at(m, 'before'))), 0);
}

/** `13 questions are won though fewer …, 14 lost though more …`: each group counted, with one example each. */
function tally(groups: Map<string, { count: number; example: string }>, said: (key: string) => string): string {
  return [...groups].map(([key, { count, example }], i) => `${whole(count)}${i === 0 ? ` question${count === 1 ? ' is' : 's are'}` : ''} ${said(key)} (${example})`).join(', ');
}

function group(into: Map<string, { count: number; example: string }>, key: string, example: string): void {
  const found = into.get(key);
  if (found) found.count++;
  else into.set(key, { count: 1, example });
}

const RELATION: Record<string, string> = { won: 'more', lost: 'fewer', held: 'as many' };

/** `outcome_follows_engines`: see the table. Blames the counts, the outcome, or both, by what the moved engines say. */
export function checkOutcomeFollowsEngines(body: unknown): Finding[] {
  type Blame = 'counts' | 'outcome' | 'either';
  const found: Record<Blame, Map<string, { count: number; example: string }>> = { counts: new Map(), outcome: new Map(), either: new Map() };
  let reversed = true;
  for (const q of valuesAtPath(body, 'questions[]')) {
    const [outcome, now, before] = [at(q, 'outcome'), at(q, 'engines_naming_now'), at(q, 'engines_naming_before')];
    if (!isNum(now) || !isNum(before) || !isOutcome(outcome)) continue;
    const says = outcomeOf(now - before);
    if (says === outcome) continue;
    reversed &&= signOf(says) === -signOf(outcome);
    const net = movedNet(q);
    const blame: Blame = net === undefined ? 'either' : Math.sign(net) === signOf(outcome) ? 'counts' : Math.sign(net) === signOf(says) ? 'outcome' : 'either';
    group(found[blame], `${outcome}|${says}`, `${questionName(q)}: ${whole(now)} now, ${whole(before)} before`);
  }
  const said = (key: string) => {
    const [outcome, says] = key.split('|');
    return `${outcome} though ${RELATION[says!]} engines name the brand now than before`.replace('as many engines name the brand now than before', 'as many engines name the brand now as before');
  };
  const counted = (groups: Map<string, { count: number }>) => ({
    questions: [...groups.values()].reduce((n, g) => n + g.count, 0),
    ...Object.fromEntries(OUTCOMES.map((o) => [o, [...groups].filter(([k]) => k.startsWith(`${o}|`)).reduce((n, [, g]) => n + g.count, 0)]).filter(([, n]) => n !== 0)),
  });
  const findings: Finding[] = [];
  if (found.counts.size > 0)
    findings.push({
      fields: ['questions[].engines_naming_now', 'questions[].engines_naming_before'],
      values: counted(found.counts),
      message: `${tally(found.counts, said)}, while the engines that moved each go its way: are \`engines_naming_now\` and \`engines_naming_before\` read from the right fields${reversed ? ' (each from the other’s)' : ''}?`,
    });
  if (found.outcome.size > 0)
    findings.push({
      fields: ['questions[].outcome'],
      values: counted(found.outcome),
      message: `${tally(found.outcome, said)}, and the engines that moved each agree with the counts: are the outcomes' values (won, lost, held) mapped the right way round?`,
    });
  if (found.either.size > 0)
    findings.push({
      fields: ['questions[].outcome', 'questions[].engines_naming_now', 'questions[].engines_naming_before'],
      values: counted(found.either),
      message: `${tally(found.either, said)}: are the outcomes' values (won, lost, held) mapped the right way round, or \`engines_naming_now\` and \`engines_naming_before\` read from the wrong fields?`,
    });
  return findings;
}

/** `moves_follow_outcome`: see the table. Says nothing where the counts agree with the moves (the outcome is then the odd one: `outcome_follows_engines`). */
export function checkMovesFollowOutcome(body: unknown): Finding[] {
  const groups = new Map<string, { count: number; example: string }>();
  let reversed = true;
  for (const q of valuesAtPath(body, 'questions[]')) {
    const outcome = at(q, 'outcome');
    const net = movedNet(q);
    if (!isOutcome(outcome) || net === undefined || Math.sign(net) === signOf(outcome)) continue;
    const [now, before] = [at(q, 'engines_naming_now'), at(q, 'engines_naming_before')];
    if (isNum(now) && isNum(before) && Math.sign(now - before) === Math.sign(net)) continue;
    reversed &&= Math.sign(net) === -signOf(outcome) && signOf(outcome) !== 0;
    const move = valuesAtPath(q, 'moved[]').find((m) => names(at(m, 'now')) !== names(at(m, 'before')));
    const example = move ? `${questionName(q)}: ${String(at(move, 'engine'))} ${String(at(move, 'before'))} → ${String(at(move, 'now'))}` : questionName(q);
    group(groups, outcome, example);
  }
  if (groups.size === 0) return [];
  const said = (outcome: string) => `${outcome} though their moved engines name the brand ${outcome === 'won' ? 'less' : outcome === 'lost' ? 'more' : 'more or less'} now than before`;
  const values = { questions: [...groups.values()].reduce((n, g) => n + g.count, 0), ...Object.fromEntries([...groups].map(([o, g]) => [o, g.count])) };
  return [
    {
      fields: ['questions[].moved[].before', 'questions[].moved[].now'],
      values,
      message: `${tally(groups, said)}: are \`moved[].before\` and \`moved[].now\` read from the right fields${reversed ? ' (each from the other’s)' : ''}?`,
    },
  ];
}

/** The fewest runs the dominant state of 5 can have, as a share: the most frequent of 5 holds at least a fifth. */
const DOMINANT_FLOOR = 20;

/** `rate_is_share_of_runs`: see the table. */
export function checkRateIsShare(body: unknown): Finding[] {
  // A rate above 100 is `within_range`'s to say.
  const cells = valuesAtPath(body, 'prompts[].engines[]').filter((c) => isNum(at(c, 'runs')) && (at(c, 'runs') as number) > 0 && isNum(at(c, 'rate')) && (at(c, 'rate') as number) <= 100);
  if (cells.length === 0) return [];
  // Rates written with decimals are rounded to a tenth; whole rates to a point.
  const half = cells.some((c) => !Number.isInteger(at(c, 'rate'))) ? 0.05 : 0.5;
  const wrong = cells.filter((c) => {
    const [rate, runs] = [at(c, 'rate') as number, at(c, 'runs') as number];
    const share = (rate * runs) / 100;
    const slack = (half * runs) / 100;
    return rate < DOMINANT_FLOOR - half || (slack < 0.5 && Math.abs(share - Math.round(share)) > slack + 1e-9);
  });
  const equal = cells.filter((c) => at(c, 'rate') === at(c, 'runs')).length;
  const asRuns = cells.length >= 3 && equal === cells.length;
  if (wrong.length === 0 && !asRuns) return [];
  const first = wrong[0] ?? cells[0]!;
  const [rate, runs] = [at(first, 'rate') as number, at(first, 'runs') as number];
  const example = `rate ${whole(rate)} of ${whole(runs)} runs is ${whole((rate * runs) / 100)} runs${rate < DOMINANT_FLOOR ? `, and a dominant state holds at least ${DOMINANT_FLOOR}%` : ''}`;
  return [
    {
      fields: ['prompts[].engines[].rate'],
      values: { cells: cells.length, wrong: wrong.length, equal_to_runs: equal, example: { rate, runs } },
      message: `prompts[].engines[].rate is not the share of its cell's runs in ${whole(wrong.length)} of ${whole(cells.length)} cells (${example})${asRuns ? `, and equals its cell's runs in all ${whole(cells.length)}` : ''}: is \`rate\` read from the right field${asRuns ? ' (it reads `runs`)' : ''}?`,
    },
  ];
}

const FIXED_PATHS: Partial<Record<OperationId, string>> = { getVisibility: '/visibility', getPromptMatrix: '/prompts', getAnswerHistory: '/answers/history' };

/** `fixed_windows`: see the table. The clock is the caller's (`today`); without it only the windows' lengths and order are judged. */
export function checkFixedWindows(body: unknown, _fields: readonly string[], operation: OperationId, context: { today?: string | undefined }): Finding[] {
  const path = FIXED_PATHS[operation] ?? operation;
  const [from, to] = [dayOf(at(body, 'period.from')), dayOf(at(body, 'period.to'))];
  if (Number.isNaN(from) || Number.isNaN(to)) return [];
  const period = { from: isoDay(from), to: isoDay(to) };
  const findings: Finding[] = [];
  const days = Math.round((to - from) / DAY) + 1;
  if (days !== 7)
    findings.push({
      fields: ['period.from', 'period.to'],
      values: { period },
      message: `${path} period ${period.from} to ${period.to} is ${whole(days)} day${days === 1 ? '' : 's'}, but its window is fixed at the last 7 days: is \`period\` read from the right fields?`,
    });
  const today = dayOf(context.today);
  let periodLate = false;
  if (!Number.isNaN(today)) {
    const behind = Math.round((today - to) / DAY);
    if (Math.abs(behind) > 1) {
      periodLate = true;
      const when = behind > 0 ? `${whole(behind)} days before today (${isoDay(today)})` : `${whole(-behind)} days after today (${isoDay(today)})`;
      const fromComparison = operation === 'getAnswerHistory' && Math.abs(behind - 7) <= 1;
      findings.push({
        fields: ['period.from', 'period.to'],
        values: { period, today: isoDay(today) },
        message: `${path} period ${period.from} to ${period.to} ends ${when}, but its window is the last 7 days ending today: is \`period\` read from ${fromComparison ? 'the comparison window (`previous_period`)' : 'the right fields'}?`,
      });
    }
  }
  if (operation !== 'getAnswerHistory') return findings;
  const [pFrom, pTo] = [dayOf(at(body, 'previous_period.from')), dayOf(at(body, 'previous_period.to'))];
  if (Number.isNaN(pFrom) || Number.isNaN(pTo) || (pFrom === from - 7 * DAY && pTo === to - 7 * DAY)) return findings;
  const previous = { from: isoDay(pFrom), to: isoDay(pTo) };
  // The period itself wrong (it ends a week early), the comparison window where it should be: that one finding says it.
  if (periodLate && Math.abs(Math.round((today - pTo) / DAY) - 7) <= 1) return findings;
  const same = pFrom === from && pTo === to;
  const swapped = pFrom === from + 7 * DAY && pTo === to + 7 * DAY;
  findings.push({
    fields: same || swapped ? ['period.from', 'period.to', 'previous_period.from', 'previous_period.to'] : ['previous_period.from', 'previous_period.to'],
    values: { period, previous_period: previous },
    message: `${path} compares ${period.from} to ${period.to} with ${previous.from} to ${previous.to}, but its comparison window is the 7 days before: ${same ? 'are `period` and `previous_period` read from the same field?' : swapped ? 'are `period` and `previous_period` read from each other’s fields?' : 'is `previous_period` read from the right fields?'}`,
  });
  return findings;
}

/**
 * `period_is_the_window` and `previous_period_before_it`: the read's `period` (or the window before it) is the window
 * it asked for (or as many days just before it), each end a day either side for time zones, its length exact.
 */
export const checkWindowAsked =
  (which: 'period' | 'previous_period') =>
  (body: unknown, fields: readonly string[], _operation: OperationId, context: { window?: { from: string; to: string } | undefined }): Finding[] => {
    const [from, to] = [dayOf(at(body, fields[0]!)), dayOf(at(body, fields[1]!))];
    if (!context.window || Number.isNaN(from) || Number.isNaN(to)) return [];
    const asked = { from: dayOf(context.window.from), to: dayOf(context.window.to) };
    const want = which === 'period' ? asked : { from: 2 * asked.from - asked.to - DAY, to: asked.from - DAY };
    const off = (a: number, b: number) => Math.abs(a - b) > DAY;
    if (to - from === want.to - want.from && !off(from, want.from) && !off(to, want.to)) return [];
    const [read, wanted] = [`${isoDay(from)} to ${isoDay(to)}`, `${isoDay(want.from)} to ${isoDay(want.to)}`];
    return [
      {
        fields: [...fields],
        values: { [which]: { from: isoDay(from), to: isoDay(to) }, want: { from: isoDay(want.from), to: isoDay(want.to) } },
        message: `${which} reads ${read}, but the read asked for ${which === 'period' ? wanted : `${isoDay(asked.from)} to ${isoDay(asked.to)}, so the window before is ${wanted}`}: is \`${which}\` read from the right fields?`,
      },
    ];
  };

/** Our form for an engine's name: lower case, `_` between words (`google_ai_overviews`). */
const OUR_FORM = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
/** A vendor's upper-case alias (`OPENAI`, `GOOGLE_AIO`), as enumeration values are written by many services. */
const UPPER_ALIAS = /^[A-Z][A-Z0-9]*([_\- .][A-Z0-9]+)*$/;
/** The vendors of our engines: a value naming one is an alias of ours left unmapped, not an engine of the service's own. */
const VENDORS = ['openai', 'anthropic', 'google', 'microsoft', 'bing'];
/**
 * A value the map should have mapped or declared: an upper-case alias, or one naming a vendor of ours. Any other
 * value of the service's own (`Grok-2`) is carried under its own name (DESIGN section 13), as before.
 */
const looksLikeAlias = (value: string) =>
  UPPER_ALIAS.test(value) ||
  value
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .some((word) => VENDORS.includes(word));
const inOurForm = (value: string) =>
  value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '') || 'engine';

/** `engines_ours_or_declared`: see the table. An engine that answered nothing is not counted, so not judged. */
export function checkEnginesDeclared(body: unknown, fields: readonly string[]): Finding[] {
  const field = fields[0]!;
  const answered =
    field === 'prompts[].engines[].engine'
      ? valuesAtPath(body, 'prompts[].engines[]')
          .filter((c) => isNum(at(c, 'runs')) && (at(c, 'runs') as number) > 0)
          .map((c) => at(c, 'engine'))
      : valuesAtPath(body, field);
  const strays = [...new Set(answered)].filter(
    (v): v is string => typeof v === 'string' && !(ENGINES as readonly string[]).includes(v) && oursUnderVendor(v, ENGINES) === undefined && !OUR_FORM.test(v) && looksLikeAlias(v),
  );
  if (strays.length === 0) return [];
  const shown = strays.slice(0, 5);
  const pairs = shown.map((v) => `"${v}": "${inOurForm(v)}"`).join(', ');
  const more = strays.length > shown.length ? ` and ${whole(strays.length - shown.length)} more` : '';
  return [
    {
      fields: [field],
      values: { [field]: strays },
      message: `${field} ${shown.map((v) => `\`${v}\``).join(', ')}${more}: ${strays.length === 1 ? 'an engine that answered, under a name' : `${whole(strays.length)} engines that answered, under names`} neither ours nor declared, each counted as an engine of its own: map ${strays.length === 1 ? 'it' : 'each'} onto ours in \`values\`, or declare ${strays.length === 1 ? 'it' : 'each'} as another engine in our form (${pairs})?`,
    },
  ];
}

/**
 * Wholes and the parts that divide them (`[whole, parts]`, the parts below the whole's holder): for each holder (the
 * body, or each item of the whole's list) the parts' values add up to the whole's.
 */
export function checkPartsAddUp(pairs: readonly (readonly [string, string])[]) {
  return (body: unknown): Finding[] =>
    pairs.flatMap(([wholePath, partsPath]) => {
      const holder = listOf(wholePath) ?? '';
      const holders = holder ? valuesAtPath(body, holder) : [body];
      const rest = (path: string) => (holder ? path.slice(holder.length + 1) : path);
      const broken = holders.flatMap((item, i) => {
        const [total, parts] = [at(item, rest(wholePath)), valuesAtPath(item, rest(partsPath))];
        if (!isNum(total) || parts.length === 0 || !parts.every(isNum)) return [];
        const sum = (parts as number[]).reduce((s, n) => s + n, 0);
        return sum === total ? [] : [{ i, total, sum }];
      });
      if (broken.length === 0) return [];
      const first = broken[0]!;
      const where = holder ? ` (item ${first.i + 1} of \`${holder}\`${broken.length > 1 ? `, and ${broken.length - 1} more` : ''})` : '';
      return [
        {
          fields: [partsPath, wholePath],
          values: { [wholePath]: first.total, [partsPath]: first.sum, broken: broken.length },
          message: `${partsPath} add up to ${whole(first.sum)}, but ${wholePath} is ${whole(first.total)}${where}: are they read from the right fields?`,
        },
      ];
    });
}

/** Each `[now, before, change]` of counts: the change is now less before, in every holder. */
export function checkChangeOfCounts(triples: readonly (readonly [string, string, string])[]) {
  return (body: unknown): Finding[] =>
    triples.flatMap(([nowPath, beforePath, changePath]) => {
      const holder = listOf(nowPath) ?? '';
      const rest = (path: string) => (holder ? path.slice(holder.length + 1) : path);
      const broken = (holder ? valuesAtPath(body, holder) : [body]).filter((item) => {
        const [now, before, change] = [rest(nowPath), rest(beforePath), rest(changePath)].map((p) => at(item, p));
        return isNum(now) && isNum(before) && isNum(change) && now - before !== change;
      });
      if (broken.length === 0) return [];
      const [now, before, change] = [rest(nowPath), rest(beforePath), rest(changePath)].map((p) => at(broken[0], p)) as number[];
      return [
        {
          fields: [changePath, nowPath, beforePath],
          values: { [nowPath]: now, [beforePath]: before, [changePath]: change, broken: broken.length },
          message: `${changePath} ${whole(change!)}, but ${whole(now!)} now against ${whole(before!)} before is ${whole(now! - before!)}${broken.length > 1 ? ` (and ${broken.length - 1} more)` : ''}: are \`${nowPath}\` and \`${beforePath}\` read the right way round?`,
        },
      ];
    });
}

/**
 * A brand's position is its rank where an answer named it (contract paths of one holder: a cell, or one answer):
 * a state that names the brand has one; a cell all of whose runs are in a state that does not name it (`rate` 100),
 * or a single answer that does not name it (no `rate`), has none.
 */
/** A move of `/answers/history` whose `now` is `absent` (rivals named, the brand not) names its top rival. */
export function checkAbsentNamesARival(body: unknown): Finding[] {
  const moves = valuesAtPath(body, 'questions[].moved[]');
  // Null, not absent: a service without the field says nothing of it.
  const wrong = moves.filter((m) => at(m, 'now') === 'absent' && at(m, 'top_rival') === null);
  if (wrong.length === 0) return [];
  return [
    {
      fields: ['questions[].moved[].now', 'questions[].moved[].top_rival'],
      values: { 'questions[].moved[].now': 'absent', 'questions[].moved[].top_rival': null, moves: wrong.length },
      message: `${whole(wrong.length)} ${wrong.length === 1 ? 'move ends' : 'moves end'} \`absent\` with no rival named: an absent answer names rivals and not the brand, so \`questions[].moved[].now\` reads another state (open names no one) or \`top_rival\` another field.`,
    },
  ];
}

export function checkPositionWhereNamed(state: string, position: string, rate?: string) {
  const holder = state.slice(0, state.lastIndexOf('.'));
  const rest = (path: string) => path.slice(holder.length + 1);
  return (body: unknown): Finding[] => {
    // Only states of ours are judged: a value the map does not name yet says nothing of the brand.
    const cells = valuesAtPath(body, holder).filter((c) => (STATES as readonly unknown[]).includes(at(c, rest(state))));
    const placed = (c: unknown) => at(c, rest(position)) !== null && at(c, rest(position)) !== undefined;
    const unnamed = (c: unknown) => !names(at(c, rest(state))) && (rate === undefined || at(c, rest(rate)) === 100);
    const wrong = cells.filter((c) => (names(at(c, rest(state))) ? !placed(c) : unnamed(c) && placed(c)));
    if (wrong.length === 0) return [];
    const first = wrong[0];
    return [
      {
        fields: [position, state],
        values: { [state]: at(first, rest(state)), [position]: at(first, rest(position)), cells: wrong.length },
        message: `${position} ${JSON.stringify(at(first, rest(position)))} where the state is ${JSON.stringify(at(first, rest(state)))}${wrong.length > 1 ? ` (and ${wrong.length - 1} more)` : ''}: a position is the brand's rank where an answer named it, none where none did: is \`${position}\` read from the right field?`,
      },
    ];
  };
}

/** Each list `path` is a field of the items of (`topics[].rivals[]` of `topics[].rivals[].share`) is ordered by it, largest first. */
export function checkLargestFirst(path: string) {
  const list = path.slice(0, path.lastIndexOf('[]'));
  const field = path.slice(list.length + 3);
  const [holder, name] = list.includes('.') ? [list.slice(0, list.lastIndexOf('.')), list.slice(list.lastIndexOf('.') + 1)] : ['', list];
  return (body: unknown): Finding[] => {
    const lists = (holder ? valuesAtPath(body, holder) : [body]).map((h) => at(h, name)).filter(Array.isArray);
    const rising = (items: unknown[]) =>
      items
        .map((item) => at(item, field))
        .filter(isNum)
        .some((v, i, all) => i > 0 && v > all[i - 1]!);
    const broken = lists.filter(rising);
    if (broken.length === 0) return [];
    const values = broken[0]!
      .map((item) => at(item, field))
      .filter(isNum)
      .slice(0, 4);
    return [
      {
        fields: [path],
        values: { [path]: values, lists: broken.length },
        message: `${path} ${values.map(whole).join(', ')}${broken.length > 1 ? ` (and ${broken.length - 1} more lists)` : ''}: the list is most named first, so these never rise: is \`${path}\` read from the right field?`,
      },
    ];
  };
}

/** Shares and scores lie within 0 to 100 once converted; a change of one lies within -100 to 100. */
export const checkWithinRange = (body: unknown, fields: readonly string[]): Finding[] =>
  fields.flatMap((field) => {
    const low = field.endsWith('change') ? -100 : 0;
    const out = present(valuesAtPath(body, field)).filter((v) => isNum(v) && (v < low || v > 100));
    return out.length === 0
      ? []
      : [
          {
            fields: [field],
            values: { [field]: out.slice(0, 3) },
            message: `${field} ${some(out)}: outside ${low} to 100, so not a percentage: is \`${field}\` read from the right field, or converted twice?`,
          },
        ];
  });

/** Many small values tell 0-1 shares from a few small percentages. */
const FRACTION_EVIDENCE = 3;

/** Many values all below one point, written with more decimals than a percentage has, are 0-1 shares read as points. */
export const checkPointsNotFractions = (body: unknown, fields: readonly string[]): Finding[] =>
  fields.flatMap((field) => {
    const nums = present(valuesAtPath(body, field)).filter(isNum);
    const nonzero = [...new Set(nums.filter((v) => v !== 0))];
    const fine = (v: number) => Math.abs(v * 10 - Math.round(v * 10)) < 1e-6;
    if (nonzero.length < FRACTION_EVIDENCE || nums.some((v) => Math.abs(v) >= 1) || nonzero.every(fine)) return [];
    return [
      {
        fields: [field],
        values: { [field]: nonzero.slice(0, 3) },
        message: `${field} ${some(nonzero)}: every value is below one point and written to more decimals than a percentage has, as a 0-1 share is: is \`${field}\` read without \`convert: percent\`?`,
      },
    ];
  });

/** Counts are whole numbers, never negative. */
export const checkWholeCounts = (body: unknown, fields: readonly string[]): Finding[] =>
  fields.flatMap((field) => {
    const bad = present(valuesAtPath(body, field)).filter((v) => !isNum(v) || v < 0 || !Number.isInteger(v));
    return bad.length === 0
      ? []
      : [{ fields: [field], values: { [field]: bad.slice(0, 3) }, message: `${field} ${some(bad)}: a count is a whole number, never negative: is \`${field}\` read from the right field?` }];
  });
