/**
 * The plausibility rules of a 12-week history (plausibility.ts's table holds
 * them by id): its weeks, the change against the week before, and the last
 * week as the period.
 */
import { valuesAtPath } from './paths';
import { at, DAY, dayOf, type Finding, figure, isNum, one, ROUNDING, scoreNotShareNamed, shown, whole } from './plausibility-words';

/** `weeks_consecutive` (plausibility.ts). */
export const checkWeeksConsecutive = (body: unknown, fields: readonly string[]): Finding[] => {
  const weeks = valuesAtPath(body, 'history[]').map((w) => [dayOf(at(w, 'week_start')), dayOf(at(w, 'week_end'))] as const);
  const [from, to] = [dayOf(at(body, 'period.from')), dayOf(at(body, 'period.to'))];
  if (weeks.length === 0 || weeks.some(([s, e]) => Number.isNaN(s) || Number.isNaN(e)) || Number.isNaN(from) || Number.isNaN(to)) return [];
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  const broken = weeks.findIndex(([s, e], i) => e - s !== 6 * DAY || (i > 0 && s - weeks[i - 1]![1] !== DAY));
  if (broken >= 0) {
    const [s, e] = weeks[broken]!;
    return [
      {
        fields: ['history[].week_start', 'history[].week_end'],
        values: { week: broken + 1, week_start: day(s), week_end: day(e) },
        message: `history week ${broken + 1} runs ${day(s)} to ${day(e)}${broken > 0 ? ` after a week ending ${day(weeks[broken - 1]![1])}` : ''}: weeks are 7 days, consecutive, oldest first: are \`week_start\` and \`week_end\` read from the right fields?`,
      },
    ];
  }
  const last = weeks.at(-1)![1];
  if (last >= from && last <= to) return [];
  return [
    {
      fields: [...fields],
      values: { week_end: day(last), period: { from: day(from), to: day(to) } },
      message: `the history's last week ends ${day(last)}, outside the period ${day(from)} to ${day(to)}: is the history read oldest first, from the right fields?`,
    },
  ];
};

/** `change_against_week_before` (plausibility.ts). */
export const checkChangeAgainstWeekBefore = (body: unknown): Finding[] => {
  const history = valuesAtPath(body, 'history[]');
  const [change, score] = [at(body, 'change'), at(body, 'score')];
  const [lastWeek, before] = [history.at(-1), history.at(-2)];
  if (!lastWeek || !before || at(lastWeek, 'week_start') !== at(body, 'period.from') || at(lastWeek, 'week_end') !== at(body, 'period.to')) return [];
  const previous = at(before, 'score');
  if (!isNum(change) || !isNum(score) || !isNum(previous)) return [];
  // A score that is not the share named is that rule's to say: the change is judged against a right score only.
  if (scoreNotShareNamed(body)) return [];
  const expected = score - previous;
  if (Math.abs(change - expected) <= ROUNDING) return [];
  return [
    {
      fields: ['change', 'score', 'history[].score'],
      values: { change, score, week_before: previous },
      message: `change ${shown(change)}, but the score went from ${one(previous)} the week before to ${one(score)} (${expected >= 0 ? '+' : ''}${one(expected)} points): is \`change\` read from the right field, in points (a 0-1 change needs \`convert: percent\`)?`,
    },
  ];
};

/** `last_week_is_the_period` (plausibility.ts). */
export const checkLastWeekIsThePeriod = (body: unknown): Finding[] => {
  const last = valuesAtPath(body, 'history[]').at(-1);
  if (!last || dayOf(at(last, 'week_start')) !== dayOf(at(body, 'period.from')) || dayOf(at(last, 'week_end')) !== dayOf(at(body, 'period.to'))) return [];
  // A period's figures that are not the share named are that rule's to say: the last week is judged against right ones.
  if (scoreNotShareNamed(body)) return [];
  const [answered, score] = [at(body, 'answered_runs'), at(body, 'score')];
  const found: Finding[] = [];
  const lastAnswered = at(last, 'answered_runs');
  if (isNum(answered) && isNum(lastAnswered) && answered !== lastAnswered)
    found.push({
      fields: ['history[].answered_runs', 'answered_runs'],
      values: { answered_runs: answered, last_week: lastAnswered },
      message: `${whole(answered)} answered in the period, but ${whole(lastAnswered)} in the history's last week, which is the period: is \`history[].answered_runs\` read from the right field?`,
    });
  const lastScore = at(last, 'score');
  if (isNum(score) && isNum(lastScore) && Math.abs(score - lastScore) > ROUNDING)
    found.push({
      fields: ['history[].score', 'score'],
      values: { score, last_week: lastScore },
      message: `score ${figure(score)}, but ${figure(lastScore)} in the history's last week, which is the period: is \`history[].score\` read from the right field, in the score's unit?`,
    });
  return found;
};
