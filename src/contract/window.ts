/**
 * Time windows. Every date is a UTC calendar day written `YYYY-MM-DD`; a
 * period includes both ends (DESIGN section 3).
 */
import { DAY_MS } from '../lib/time';
import { invalidParameter } from './errors';
import { dateParam, intParam } from './params';

export type WindowKind =
  /** No time window: lists of things (brands, tasks, activity). */
  | { kind: 'none' }
  /** Fixed by the operation; date parameters are refused (spec, Endpoints rule 5). */
  | { kind: 'fixed'; days: number }
  /** `days`, `from`, `to`; `from` wins over `days`. */
  | { kind: 'dated'; defaultDays: number }
  /** `days` only, ending today. */
  | { kind: 'trailing'; defaultDays: number };

export const MAX_RANGE_DAYS = 90;

/** Inclusive UTC calendar days, `YYYY-MM-DD` (its schema: `commonSchemas().Period`). */
export interface Period {
  from: string;
  to: string;
}

export const toDay = (date: Date): string => date.toISOString().slice(0, 10);
export const dayNumber = (day: string): number => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
export const addDays = (day: string, n: number): string => toDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));
export const daysBetween = (from: string, to: string): number => dayNumber(to) - dayNumber(from);

/** The N calendar days ending on `to`, `to` included. */
export const lastDays = (to: string, days: number): Period => ({ from: addDays(to, -(days - 1)), to });

/** The period of the same length just before `p`. */
export const previousPeriod = (p: Period): Period => {
  const length = daysBetween(p.from, p.to) + 1;
  return { from: addDays(p.from, -length), to: addDays(p.from, -1) };
};

/** `days`: 1 to MAX_RANGE_DAYS, the window kind's default when absent. */
const daysParam = (defaultDays: number, endingOn: string, more = '') =>
  intParam({ min: 1, max: MAX_RANGE_DAYS, description: `How many calendar days back, ending ${endingOn} (1 to ${MAX_RANGE_DAYS}, default ${defaultDays}).${more}` }).default(defaultDays);

const datedParams = (defaultDays: number) => ({
  days: daysParam(defaultDays, 'on `to`', ' Ignored when `from` is given.'),
  from: dateParam(`Start date, at most ${MAX_RANGE_DAYS} days before \`to\`.`).optional(),
  to: dateParam('End date, not after today. Default: today.').optional(),
});
const trailingParams = (defaultDays: number) => ({ days: daysParam(defaultDays, 'today') });

/** The query parameters each window kind adds, as a type. */
export type WindowParams<W extends WindowKind> = W extends { kind: 'dated' } ? ReturnType<typeof datedParams> : W extends { kind: 'trailing' } ? ReturnType<typeof trailingParams> : {};

/** The query parameters a window kind adds to an operation. */
export function windowParams<W extends WindowKind>(window: W): WindowParams<W> {
  switch (window.kind) {
    case 'dated':
      return datedParams(window.defaultDays) as WindowParams<W>;
    case 'trailing':
      return trailingParams(window.defaultDays) as WindowParams<W>;
    default:
      return {} as WindowParams<W>;
  }
}

type WindowInput = { days?: number; from?: string; to?: string };

/** Resolves a window's parameters to absolute dates, enforcing the range rules. */
export function resolvePeriod(window: WindowKind, input: WindowInput, today: string): Period | undefined {
  switch (window.kind) {
    case 'none':
      return undefined;
    case 'fixed':
      return lastDays(today, window.days);
    case 'trailing':
      return lastDays(today, input.days ?? window.defaultDays);
    case 'dated': {
      const to = input.to ?? today;
      if (to > today) throw invalidParameter('to', '`to` must not be after today (UTC).');
      if (input.from === undefined) return lastDays(to, input.days ?? window.defaultDays);
      if (input.from > to) throw invalidParameter('from', '`from` must not be after `to`.');
      if (daysBetween(input.from, to) > MAX_RANGE_DAYS) throw invalidParameter('from', `\`from\` must be at most ${MAX_RANGE_DAYS} days before \`to\`.`);
      return { from: input.from, to };
    }
  }
}

/** Explains why a date parameter is refused on a fixed-window operation. */
export function windowHint(window: WindowKind) {
  return (param: string) =>
    window.kind === 'fixed' && ['days', 'from', 'to'].includes(param)
      ? `\`${param}\` is not accepted: this operation reads a fixed window of the last ${window.days} days.`
      : window.kind === 'trailing' && ['from', 'to'].includes(param)
        ? `\`${param}\` is not accepted: this operation takes only \`days\`, a window ending today.`
        : undefined;
}
