/**
 * Quiet hours: local times between which no alert is delivered (default
 * 22:00 to 07:00, per subscription). A delivery found inside them is held
 * until their end; the hourly cron releases it.
 */
import { MINUTE_MS } from '../lib/time';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Minutes after local midnight of `instant` in `timeZone`. */
export function localMinutes(instant: Date, timeZone: string): number {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', hour: '2-digit', minute: '2-digit' });
    formatters.set(timeZone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(instant).map((p) => [p.type, p.value]));
  return (Number(parts.hour) % 24) * 60 + Number(parts.minute);
}

/** Whether `minutes` (after local midnight) falls in the quiet hours; a window may run past midnight, and start = end is none. */
export function inQuietHours(minutes: number, quiet: { start: number; end: number }): boolean {
  if (quiet.start === quiet.end) return false;
  return quiet.start < quiet.end ? minutes >= quiet.start && minutes < quiet.end : minutes >= quiet.start || minutes < quiet.end;
}

/**
 * When a delivery found at `now` may go: `now` outside quiet hours, else
 * their end (local wall time; a night with a daylight-saving change may
 * release it an hour early or late).
 */
export function releaseAt(now: Date, timeZone: string, quiet: { start: number; end: number }): Date {
  const minutes = localMinutes(now, timeZone);
  if (!inQuietHours(minutes, quiet)) return now;
  const wait = (quiet.end - minutes + 1440) % 1440;
  const minuteStart = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;
  return new Date(minuteStart + wait * MINUTE_MS);
}
