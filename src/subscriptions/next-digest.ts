/**
 * When a subscription's next digest goes out, as the confirm page tells it:
 * the first hourly planner run (src/digests/planner.ts, cron `0 * * * *`)
 * that finds the subscription due (Monday 08:00 local, or the catch-up hours
 * after it, src/weekly-report/week.ts) for a week it has no send record of.
 */
import { HOUR_MS } from '../lib/time';
import { dueWeek, localTime } from '../weekly-report/week';

export interface NextDigest {
  /** The planner run that sends it. */
  at: Date;
  /** Its local day (`2026-11-30`), weekday (Monday = 1) and hour. */
  local: { day: string; weekday: number; hour: number };
}

/** A planner run finds every subscription due within a week and a day. */
const HORIZON_HOURS = 8 * 24;

/**
 * The first planner run after `now` that would send to a subscription in
 * `timeZone` that has records for the ISO weeks `sentWeeks`; null past the
 * horizon (cannot happen for a valid timezone).
 */
export function nextDigest(now: Date, timeZone: string, sentWeeks: ReadonlySet<string>): NextDigest | null {
  const firstRun = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS;
  for (let h = 0; h < HORIZON_HOURS; h++) {
    const at = new Date(firstRun + h * HOUR_MS);
    const due = dueWeek(at, timeZone);
    if (due && !sentWeeks.has(due.isoWeek)) return { at, local: localTime(at, timeZone) };
  }
  return null;
}

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `Monday 30 Nov 2026 at 08:00 (Europe/Berlin)`. */
export function describeNextDigest(next: NextDigest, timeZone: string): string {
  const [year, month, day] = next.local.day.split('-');
  return `${WEEKDAYS[next.local.weekday - 1]} ${Number(day)} ${MONTHS[Number(month) - 1]} ${year} at ${String(next.local.hour).padStart(2, '0')}:00 (${timeZone})`;
}
