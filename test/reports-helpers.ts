/**
 * Shared by the report tests: requests to the Worker, the report's JSON form,
 * and cleaning the report tables (all files share one storage).
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import worker from './worker';
import type { ReportSource } from '../src/weekly-report/read';
import type { Report } from '../src/weekly-report/model';

export const BASE = 'https://edge.test';

export interface ReportJson {
  report: Report;
  source: ReportSource;
}

/** A request through the Worker (SELF): the test env, dev outbox, PUBLIC_URL unset. */
export function call(path: string, o: { key?: string | null; method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers = new Headers(o.headers);
  if (o.key) headers.set('authorization', `Bearer ${o.key}`);
  return SELF.fetch(`${BASE}${path}`, { method: o.method ?? 'GET', headers, ...(o.body !== undefined ? { body: o.body } : {}) });
}

/** A page's form posted to `path` without a key, as a browser on `origin` sends it (a share link's CSV links: `/r/<token>/csv`). */
export const postForm = (path: string, origin = BASE) => call(path, { method: 'POST', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });

/** A request to the Worker's fetch handler with another env (fake Resend, PUBLIC_URL ...). */
export async function callWith(testEnv: Env, path: string, o: { key?: string | null; method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const headers = new Headers(o.headers);
  if (o.key) headers.set('authorization', `Bearer ${o.key}`);
  const ctx = createExecutionContext();
  const response = await worker.fetch!(
    new Request(`${BASE}${path}`, { method: o.method ?? 'GET', headers, ...(o.body !== undefined ? { body: o.body } : {}) }) as Request<unknown, IncomingRequestCfProperties>,
    testEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return response;
}

export async function reportJson(path: string, key: string | null = 'demo_pro_single'): Promise<ReportJson> {
  const response = await call(path.includes('?') ? `${path}&format=json` : `${path}?format=json`, { key });
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as ReportJson;
}

/** Mints a link through the API and returns its path (`/r/<token>`) and body. */
export async function mintLink(body: Record<string, unknown> = {}, key = 'demo_pro_single') {
  const response = await call('/reports/links', { key, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ market: 'us', kind: 'weekly', ...body }) });
  if (response.status !== 201) throw new Error(`mint: ${response.status} ${await response.text()}`);
  const { link } = (await response.json()) as { link: { id: string; url: string; expires_at: string } };
  return { ...link, path: new URL(link.url).pathname };
}

export async function clearReports() {
  await env.DB.batch([
    env.DB.prepare('DELETE FROM report_send_recipients'),
    env.DB.prepare('DELETE FROM report_sends'),
    env.DB.prepare('DELETE FROM report_send_gate'),
    env.DB.prepare('DELETE FROM report_links'),
  ]);
}

/**
 * The words a reader sees on a page: no script, style, tag or attribute. A
 * test of wording reads this, not the HTML, whose signed link tokens and
 * nonce are random and can spell anything (a `W12` among them once failed a
 * check for ISO weeks).
 */
export function visibleText(html: string): string {
  return html
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ');
}

/** The figures a reader sees on the page, pulled out of the HTML. */
export function pageFigures(html: string) {
  const bars = [...html.matchAll(/<g class="point(?: latest)?" data-week="([\d-]+)" data-score="([\d.]*)">/g)].map((m) => ({ week: m[1], score: m[2] === '' ? null : Number(m[2]) }));
  const list = (outcome: string) => {
    const block = new RegExp(`<ol class="questions ${outcome}"[^>]*>([\\s\\S]*?)</ol>`).exec(html)?.[1] ?? '';
    return [...block.matchAll(/<li data-question-id="(\d+)">/g)].map((m) => Number(m[1]));
  };
  const count = (what: string) => Number(new RegExp(`data-count="${what}">(\\d+)<`).exec(html)?.[1]);
  return { bars, won: list('won'), lost: list('lost'), counts: { won: count('won'), lost: count('lost'), held: count('held') } };
}
