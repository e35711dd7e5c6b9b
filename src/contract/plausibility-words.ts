/**
 * What the plausibility rules share (plausibility.ts, plausibility-checks.ts,
 * plausibility-history.ts): reading a body's values, and writing figures in
 * the words of their messages. Plain code over plain values, as the rules are.
 */
import { type AnyOperation, type OperationId, operations } from './operations';
import { valuesAtPath } from './paths';

/** What a check finds: the fields it blames, the values seen, the words. */
export interface Finding {
  fields: string[];
  values: Record<string, unknown>;
  message: string;
}

/** A share written with two decimals (`0.56`) read as a percentage is off by up to half a point: that much is rounding. */
export const ROUNDING = 0.5;

export const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
export const present = (vs: unknown[]) => vs.filter((v) => v !== null && v !== undefined);
export const one = (x: number) => x.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
export const whole = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 3 });
export const shown = (v: unknown) => (isNum(v) ? whole(v) : JSON.stringify(v));
/** A percentage as the contract writes it (one decimal), a value below one point as it is (a 0-1 share read as points). */
export const figure = (v: unknown) => (isNum(v) && (Math.abs(v) >= 1 || v === 0) ? one(v) : shown(v));
export const list = (vs: unknown[]) => `${vs.slice(0, 3).map(shown).join(', ')}${vs.length > 3 ? ', …' : ''}`;
export const at = (body: unknown, path: string) => valuesAtPath(body, path)[0];
/** `/visibility`'s score, naming runs and answered runs given, and the score not 100 × naming / answered: `score_is_share_named` breaks. */
export const scoreNotShareNamed = (body: unknown) => {
  const [score, naming, answered] = [at(body, 'score'), at(body, 'naming_runs'), at(body, 'answered_runs')];
  return isNum(score) && isNum(naming) && isNum(answered) && answered > 0 && Math.abs(score - (100 * naming) / answered) > ROUNDING;
};
/** The first values broken of `path`, and how many there are. */
export const some = (vs: unknown[]) => (vs.length > 3 ? `${list(vs)} (${vs.length} values)` : list(vs));

export const DAY = 86_400_000;
export const dayOf = (v: unknown) => (typeof v === 'string' && /^\d{4}-\d\d-\d\d$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN);

/**
 * A share stated beside the counts it is made of (`fields`: the share, the part's, the whole's): 100 × part / whole,
 * to half a point of rounding; null when the whole is 0. Nothing to say without both counts.
 */
export function shareOfCounts(fields: readonly string[], share: unknown, part: unknown, total: unknown, words: string): Finding[] {
  if (!isNum(part) || !isNum(total)) return [];
  const values = { [fields[0]!]: share, [fields[1]!]: part, [fields[2]!]: total };
  const name = fields[0]!.split('.').at(-1);
  if (total === 0)
    return share === null || share === undefined
      ? []
      : [{ fields: [...fields], values, message: `${name} ${shown(share)}, but there is nothing to share: is \`${fields[0]}\` read from the right field?` }];
  const expected = (100 * part) / total;
  if (isNum(share) && Math.abs(share - expected) <= ROUNDING) return [];
  const said = `${name} ${figure(share)}`;
  return [{ fields: [...fields], values, message: `${said}, but ${whole(part)} of ${whole(total)} ${words} (${one(expected)}%): is \`${fields[0]}\` read from the right field?` }];
}

/**
 * The `limit` a read asked (or the operation's default), where the rule knows its request (discovery does); a list
 * shorter than it is every item there is, so a count "before `limit`" equals the items listed. Undefined without it.
 */
export function askedLimit(operation: OperationId, context: { query?: Readonly<Record<string, unknown>> | undefined }): number | undefined {
  if (!context.query) return undefined;
  const limit = Number(context.query.limit ?? (operations[operation] as unknown as AnyOperation).params.query.limit?.fallback);
  return Number.isFinite(limit) ? limit : undefined;
}
