/**
 * Weeks: ISO weeks, the week of a moment in UTC or in a subscriber's IANA
 * timezone, when a weekly digest is due (Monday 08:00 local) and from when
 * change alerts are evaluated each day (07:00 local). The hourly
 * cron plans every subscription whose local time is in the due window and
 * that has no send record for that ISO week yet.
 */
import { addDays, toDay } from '../contract/window';
import { DAY_MS } from '../lib/time';

/** The due moment, local time. */
export const DUE_WEEKDAY = 1; // ISO: Monday = 1
export const DUE_HOUR = 8;
/** Change alerts are evaluated once a day from this local hour on (src/alerts/evaluate.ts). */
export const ALERT_HOUR = 7;
/**
 * How long after 08:00 a missed hour is caught up: a cron run skipped by the
 * platform (or a deploy) at 08:00 is planned at 09:00, up to Tuesday 07:59.
 */
export const CATCH_UP_HOURS = 24;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * The canonical name of an IANA timezone (`europe/berlin` is `Europe/Berlin`;
 * a city alone, `Berlin` or `new york`, is the one zone named after it), or
 * null. Offsets such as `+02:00` and abbreviations such as `CET` are not
 * accepted: they have no daylight-saving rules, so "08:00 local" would drift.
 */
export function canonicalTimeZone(name: string): string | null {
  // A city as people write it (`Berlin`, `new york`): the one zone named after it.
  const city = name.trim().replaceAll(' ', '_').toLowerCase();
  if (/^[a-z_]{3,40}$/.test(city) && city !== 'utc') {
    const zones = Intl.supportedValuesOf('timeZone').filter((zone) => zone.includes('/') && zone.split('/').at(-1)!.toLowerCase() === city);
    if (zones.length === 1) return zones[0]!;
  }
  if (name.length > 64 || !/^(UTC|Etc\/UTC|[A-Za-z]+(?:\/[A-Za-z0-9_+-]+){1,2})$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

export interface LocalTime {
  day: string; // YYYY-MM-DD
  weekday: number; // ISO, Monday = 1
  hour: number;
}

export function localTime(instant: Date, timeZone: string): LocalTime {
  const parts: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(instant)) parts[part.type] = part.value;
  return { day: `${parts.year}-${parts.month}-${parts.day}`, weekday: WEEKDAYS[parts.weekday!] ?? 0, hour: Number(parts.hour) % 24 };
}

/** ISO 8601 week of a calendar day, e.g. `2026-W48`. */
export function isoWeek(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  const weekday = date.getUTCDay() || 7;
  const thursday = new Date(date.getTime() + (4 - weekday) * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = Math.ceil(((thursday.getTime() - Date.UTC(year, 0, 1)) / DAY_MS + 1) / 7);
  return `${year}-W${String(week).padStart(2, '0')}`;
}

export interface DueWeek {
  /** The ISO week the digest is for: the same key whenever it is sent. */
  isoWeek: string;
  /** The local Monday of that week, the digest's "week of". */
  monday: string;
}

/**
 * The week a subscription is due for at `now`, or null when it is not due:
 * local time between Monday 08:00 and `CATCH_UP_HOURS` later.
 */
export function dueWeek(now: Date, timeZone: string): DueWeek | null {
  const local = localTime(now, timeZone);
  const hoursSinceMonday = (local.weekday - DUE_WEEKDAY) * 24 + local.hour;
  const sinceDue = hoursSinceMonday - DUE_HOUR;
  if (sinceDue < 0 || sinceDue >= CATCH_UP_HOURS) return null;
  const monday = addDays(local.day, -(local.weekday - DUE_WEEKDAY));
  return { isoWeek: isoWeek(monday), monday };
}

/** The ISO week of `now` in `timeZone` and its local Monday: the week a send at `now` counts for. */
export function localWeek(now: Date, timeZone: string): DueWeek {
  const local = localTime(now, timeZone);
  const monday = addDays(local.day, -(local.weekday - DUE_WEEKDAY));
  return { isoWeek: isoWeek(monday), monday };
}

/** The ISO week of `now` in UTC and its Monday: the week of an on-demand report, or of jobs that are not a planned digest (owed pause notices). */
export function utcWeek(now: Date): DueWeek {
  const day = toDay(now);
  const weekday = now.getUTCDay() || 7;
  const monday = addDays(day, -(weekday - 1));
  return { isoWeek: isoWeek(monday), monday };
}
