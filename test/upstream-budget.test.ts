/**
 * Discovery and the compatibility check keep within the key's budget (issue
 * 36 item 3), through the Worker: in front of a service that grants a key 10
 * reads a minute (and says so in `RateLimit`, with `Retry-After` on its
 * 429), a discovery, a check and a discovery in one minute each stop at the
 * first refused read, propose and store nothing, and say when to go on; the
 * upstream is not asked again while the key is refused; going on at that
 * time costs only the reads not made yet (the others are cached), until a
 * discovery reads everything and proposes the map from real answers. The
 * clock is faked: no test waits.
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { API_BASE, OPERATION_IDS } from '../src/contract/operations';
import { originTransport } from '../src/origin/transport';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { renameAt } from './reshape';
import { useUpstreamForTests } from './seams';

/** Our origin's bodies (`score` of /visibility named `visibility`), at most `limit` reads per rolling minute. */
class BudgetedUpstream {
  readonly calls: number[] = [];
  readonly refused: string[] = [];
  private readonly origin = originTransport(env.DB);

  constructor(private readonly limit: number) {}

  install(): this {
    useUpstreamForTests({ transport: (request) => this.answer(request), baseUrl: 'https://budgeted.test/api/v1', timeoutMs: 10_000, startTimeout: () => () => {} });
    return this;
  }

  private async answer(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const now = Date.now();
    const inWindow = this.calls.filter((at) => at > now - 60_000);
    if (inWindow.length >= this.limit) {
      this.refused.push(url.pathname);
      const retryAfter = Math.ceil((inWindow[0]! + 60_000 - now) / 1000);
      return Response.json(
        { error: { code: 'rate_limited', message: 'More than 10 requests in a minute.' } },
        { status: 429, headers: { 'retry-after': String(retryAfter), ratelimit: `"api";r=0;t=${retryAfter}` } },
      );
    }
    this.calls.push(now);
    const answer = await this.origin(new Request(`http://origin.internal${url.pathname}${url.search}`, { headers: { authorization: 'Bearer demo_pro_single' } }));
    if (answer.status !== 200) return answer;
    const body = (await answer.json()) as Record<string, unknown>;
    const shaped = url.pathname === `${API_BASE}/visibility` ? renameAt(body, 'score', 'visibility') : body;
    const left = this.limit - inWindow.length - 1;
    return Response.json(shaped, { headers: { 'cache-control': 'private, max-age=3600', ratelimit: `"api";r=${left};t=60` } });
  }
}

function admin(path: string, body: unknown): Promise<Response> {
  return SELF.fetch(`https://edge.test/admin/upstream/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${env.ADMIN_TOKEN}` },
    body: JSON.stringify(body),
  });
}

const storedVersion = async () =>
  ((await (await SELF.fetch('https://edge.test/admin/upstream/map', { headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` } })).json()) as { version: number }).version;

/** 10:00 UTC of the day the suite runs as (the demo data ends that day; `npm test -- days` moves it), never a fixed date. */
const T0 = (() => {
  const today = new Date();
  return Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), 10);
})();
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

afterEach(() => {
  restoreUpstream();
  vi.useRealTimers();
});

describe('a key with a budget of 10 reads a minute', () => {
  it('discovery, a check and discovery in one minute: each stops at the first refused read, proposes nothing, and says when to go on', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    const upstream = new BudgetedUpstream(10).install();
    const key = freshKey('budget');
    const version = await storedVersion();

    const first = await admin('discover', { api_key: key, apply: true });
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('60');
    const refusal = ((await first.json()) as { error: { code: string; message: string } }).error;
    expect(refusal.code).toBe('rate_limited');
    expect(refusal.message).toContain('Discovery stopped at read 11');
    expect(refusal.message).toContain('nothing was proposed or stored');
    expect(refusal.message).toContain(`Go on at ${at(60)} (in 60 s)`);
    expect(await storedVersion()).toBe(version);
    expect([upstream.calls.length, upstream.refused.length]).toEqual([10, 1]);

    vi.setSystemTime(T0 + 10_000);
    const check = await admin('check', { api_key: key });
    expect(check.status).toBe(429);
    expect(check.headers.get('retry-after')).toBe('50');
    const checkRefusal = ((await check.json()) as { error: { code: string; message: string } }).error;
    expect(checkRefusal.message).toContain('so it gives no verdict');
    expect(checkRefusal.message).toContain(`Check again at ${at(60)} (in 50 s)`);

    vi.setSystemTime(T0 + 20_000);
    const again = await admin('discover', { api_key: key });
    expect(again.status).toBe(429);
    expect(((await again.json()) as { error: { message: string } }).error.message).toContain(`Go on at ${at(60)} (in 40 s)`);
    // While the key is refused, its gate asks the upstream nothing: the first refusal is the only one it saw.
    expect([upstream.calls.length, upstream.refused.length]).toEqual([10, 1]);

    // Going on when told: the reads made are cached, so each run spends the budget on the rest only.
    let report: Record<string, unknown> | undefined;
    for (const minute of [1, 2, 3]) {
      vi.setSystemTime(T0 + minute * 61_000);
      const next = await admin('discover', { api_key: key });
      if (next.status === 200) {
        report = (await next.json()) as Record<string, unknown>;
        break;
      }
      expect(next.status).toBe(429);
    }
    expect(report).toBeDefined();
    expect(report!.stopped).toBeUndefined();
    expect(Object.values(report!.operations as Record<string, { status: number | null }>).every((op) => op.status === 200)).toBe(true);
    expect(report!.map).toEqual({ operations: { getVisibility: { fields: { score: 'visibility' }, convert: {}, values: {} } } });
    // Each operation read upstream once (the brands' too, whose read also checks the key), none twice.
    expect(upstream.calls.length).toBeLessThanOrEqual(OPERATION_IDS.length + 1);
  });
});
