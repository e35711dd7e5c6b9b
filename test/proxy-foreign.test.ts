/**
 * The proxy in front of another implementation of the spec ("foreign",
 * test/foreign-upstream.ts): a drop-in. Its bodies are passed through and
 * cached as they are, the values the spec leaves open reach it, its
 * same-origin redirects are followed and a host move never gets the key, its
 * HTML errors become the API's JSON, its `Age` and `Cache-Control` count, a
 * hung upstream costs a client with a stored copy a short deadline, and after
 * failures in a row its circuit opens. Features that read fields (digests,
 * reports) fail against it with an error naming the operation and the field.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { examplePath, operationList } from '../src/contract/operations';
import { CIRCUIT_FAILURES, CIRCUIT_OPEN_MS } from '../src/proxy/policy';
import { clearDigests, deliver, demoMonday, FakeQueue, FakeResend, runCron, seedSubscriptions, sendRecords, testEnv } from './digests-helpers';
import { ForeignUpstream, MOVED_HOST } from './foreign-upstream';
import { freshKey, get, read, restoreUpstream } from './proxy-upstream';
import { putUpstreamMap } from './helpers';
import { useProxyTimeoutForTests } from './seams';

const T0 = Date.parse('2026-11-20T10:00:00Z');
let foreign: ForeignUpstream;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(T0);
  foreign = new ForeignUpstream().install();
});
afterEach(() => {
  foreign.release();
  restoreUpstream();
  useProxyTimeoutForTests();
  vi.useRealTimers();
});

describe('bodies', () => {
  it.each(operationList.map((op) => [op.id, op] as const))('%s: its camelCase body with unknown values is stored and served as it is', async (_, op) => {
    const key = freshKey('foreign-body');
    const first = await read(await get(examplePath(op), key));
    expect(first).toMatchObject({ status: 200, cache: 'MISS' });
    expect(first.body).toMatchObject({ brandId: 1, operationName: op.id, engine: expect.any(String), vendorExtra: { region: 'eu-west' } });
    const again = await read(await get(examplePath(op), key));
    expect(again).toMatchObject({ status: 200, cache: 'HIT', text: first.text });
    expect(foreign.calls).toBe(1);
  });
});

describe('requests', () => {
  it('forwards the values the spec leaves open, and refuses at the edge only what the spec makes invalid', async () => {
    const key = freshKey('open-values');
    const open = ['/brand-perception/transcript?engine=grok', '/activity?category=mentions', '/tasks?status=archived&layer=legal', '/sources?limit=500', '/forum?limit=75'];
    for (const path of open) {
      const answer = await read(await get(path, key));
      expect([path, answer.status]).toEqual([path, 200]);
    }
    expect(foreign.requests.map((r) => r.url.pathname + r.url.search)).toEqual(open.map((p) => `/api/v1${p}`));
    // What the spec makes invalid is refused. This upstream's /brands does not name the plan in this product's words, so
    // the edge cannot tell whether the API would refuse the key, brand or plan first: it asks the upstream, and passes on its answer.
    const invalid = ['/topics?days=0', '/topics?from=2026-02-30', '/visibility?days=7', '/sources?limit=0', '/brand-perception/transcript?engine=', '/topics?bogus=1'];
    for (const path of invalid) {
      const answer = await read(await get(path, key));
      expect([path, answer.status, answer.body?.error?.code, answer.cache]).toEqual([path, 400, 'invalid_parameter', 'BYPASS']);
    }
    expect(foreign.requests.slice(open.length).map((r) => r.url.pathname + r.url.search)).toEqual(['/api/v1/brands', ...invalid.map((p) => `/api/v1${p}`)]);
  });
});

describe('pages', () => {
  const TOPICS_IN_PAGES = { operations: { listTopics: { pages: { list: 'topics', next: 'nextCursor', params: ['cursor'] } } } };
  afterEach(async () => {
    expect((await putUpstreamMap({ operations: {} })).status).toBe(200);
  });

  it("stores each page as its own entry once the map names the page's parameter; before, each read goes upstream", async () => {
    foreign.pageParam = 'cursor';
    const key = freshKey('pages');
    // Unknown to the contract, the parameter is the upstream's to judge: passed on, never stored.
    for (let i = 0; i < 2; i++) expect(await read(await get('/topics?cursor=b2Zm', key))).toMatchObject({ status: 200, cache: 'BYPASS', body: { query: { cursor: 'b2Zm' } } });
    expect(foreign.calls).toBe(2);
    expect((await putUpstreamMap(TOPICS_IN_PAGES)).status).toBe(200);
    const second = await read(await get('/topics?days=7&cursor=b2Zm', key));
    expect(second).toMatchObject({ status: 200, cache: 'MISS', body: { query: { days: '7', cursor: 'b2Zm' } } });
    expect(await read(await get('/topics?days=7&cursor=dHdv', key))).toMatchObject({ status: 200, cache: 'MISS', body: { query: { cursor: 'dHdv' } } });
    expect(await read(await get('/topics?cursor=b2Zm&days=7', key))).toMatchObject({ status: 200, cache: 'HIT', text: second.text });
    expect(foreign.calls).toBe(4);
    // What the spec makes invalid stays invalid beside a page's parameter.
    expect(await read(await get('/topics?cursor=b2Zm&days=0', key))).toMatchObject({ status: 400, body: { error: { code: 'invalid_parameter', param: 'days' } } });
  });
});

describe('redirects', () => {
  it('follows a same-origin redirect with the key', async () => {
    foreign.mode = 'moved';
    const answer = await read(await get('/visibility', freshKey('moved')));
    expect(answer).toMatchObject({ status: 200, cache: 'MISS' });
    expect(foreign.requests.map((r) => [r.url.pathname, r.authorization?.startsWith('Bearer ')])).toEqual([
      ['/api/v1/visibility', true],
      ['/v1/visibility', true],
    ]);
  });

  it('never follows a redirect to another origin: 502 saying so without naming it, the key never sent there', async () => {
    foreign.mode = 'host-moved';
    const answer = await read(await get('/visibility', freshKey('host-moved')));
    expect(answer.status).toBe(502);
    expect(answer.body?.error?.code).toBe('upstream_error');
    expect(answer.body?.error?.message).toMatch(/redirected elsewhere; nothing was followed/);
    expect(answer.text).not.toContain(new URL(MOVED_HOST).host);
    expect(foreign.requests.every((r) => r.url.origin === 'https://foreign.test')).toBe(true);
  });

  it('answers from stale when the upstream moved host and a copy is stored', async () => {
    const key = freshKey('moved-stale');
    expect((await read(await get('/visibility', key))).status).toBe(200);
    vi.setSystemTime(T0 + 3 * 3_600_000);
    foreign.mode = 'host-moved';
    expect(await read(await get('/visibility', key))).toMatchObject({ status: 200, cache: 'STALE' });
  });
});

describe("errors that are not the API's", () => {
  it.each([
    ['html-504', 504, 'text/html', /Retry later/],
    ['html-404', 404, 'text/html', /UPSTREAM_URL/],
  ] as const)('%s becomes a JSON 502 upstream_error saying what came back', async (mode, status, type, hint) => {
    foreign.mode = mode;
    const response = await get('/visibility', freshKey(mode));
    expect(response.status).toBe(502);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('upstream_error');
    expect(body.error.message).toContain(`HTTP ${status} with ${type}`);
    expect(body.error.message).toMatch(hint);
  });
});

describe('freshness', () => {
  it("counts the upstream's Age, and keeps the answer no longer than its max-age", async () => {
    foreign.age = 20;
    const response = await get('/visibility', freshKey('age'));
    expect(response.headers.get('age')).toBe('20');
    // /visibility is fresh for 1 h; the upstream says 3 600 s, of which 20 are gone.
    expect(response.headers.get('cache-control')).toBe('private, max-age=3580');
    expect(response.headers.get('cache-status')).toMatch(/; fwd=miss; fwd-status=200; stored; ttl=3580$/);
  });

  it('keeps nothing the upstream marks no-store', async () => {
    foreign.mode = 'no-store';
    const key = freshKey('no-store');
    expect(await read(await get('/visibility', key))).toMatchObject({ status: 200 });
    // At the same instant: not even shared by the gate, as it shares a 200 with identical reads for 2 s.
    expect(await read(await get('/visibility', key))).toMatchObject({ status: 200 });
    expect(foreign.calls).toBe(2);
  });
});

describe('a hung or failing upstream', () => {
  it('gives a client with a stored copy STALE at the soft deadline, while the read goes on and stores', async () => {
    const timers: (() => void)[] = [];
    useProxyTimeoutForTests((_ms, expire) => {
      timers.push(expire);
      return () => {};
    });
    const key = freshKey('hung');
    expect((await read(await get('/visibility', key))).status).toBe(200);
    vi.setSystemTime(T0 + 3 * 3_600_000);
    foreign.hang();
    const ctx = createExecutionContext();
    const pending = (await import('./worker')).default.fetch(new Request('https://edge.test/api/v1/visibility', { headers: { authorization: `Bearer ${key}` } }) as never, env, ctx);
    await vi.waitUntil(() => timers.length > 0);
    timers[0]!();
    const stale = await pending;
    expect(stale.headers.get('x-cache')).toBe('STALE');
    expect(stale.headers.get('cache-status')).toContain('detail=slow-upstream');
    foreign.release();
    await waitOnExecutionContext(ctx);
    // The read that went on stored its answer: the next one is a HIT.
    expect((await get('/visibility', key)).headers.get('x-cache')).toBe('HIT');
  });

  it(`opens the key's circuit after ${CIRCUIT_FAILURES} failures in a row, answering at once without calling, and closes it when the upstream is back`, async () => {
    foreign.mode = 'down';
    const key = freshKey('circuit');
    const paths = ['/visibility', '/topics', '/prompts', '/overview', '/sources'];
    for (const path of paths.slice(0, CIRCUIT_FAILURES)) expect((await get(path, key)).status).toBe(503);
    expect(foreign.calls).toBe(CIRCUIT_FAILURES);
    const open = await read(await get(paths[CIRCUIT_FAILURES]!, key));
    expect(open.status).toBe(502);
    expect(open.body?.error?.message).toMatch(/failed 3 times in a row/);
    expect(foreign.calls).toBe(CIRCUIT_FAILURES);
    vi.setSystemTime(T0 + CIRCUIT_OPEN_MS);
    foreign.mode = 'ok';
    expect((await get(paths[4]!, key)).status).toBe(200);
    expect(foreign.calls).toBe(CIRCUIT_FAILURES + 1);
  });
});

describe('features that read fields', () => {
  it('a report answers a JSON 502 naming the operation and the field, never a 500', async () => {
    const response = await SELF.fetch('https://edge.test/reports/weekly?format=json', { headers: { authorization: `Bearer ${freshKey('foreign-report')}` } });
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('upstream_error');
    expect(body.error.message).toMatch(/(getVisibility|getAnswerHistory|listBrands): response field `\w+`/);
  });

  it('a digest group fails for good, its records naming the operation and the field; nothing is sent or retried', async () => {
    const monday = demoMonday();
    vi.setSystemTime(monday);
    await clearDigests();
    const resend = new FakeResend().install();
    try {
      const queue = new FakeQueue();
      const key = freshKey('foreign-digest');
      await seedSubscriptions([{ email: 'foreign@example.com', key }]);
      await runCron(monday.toISOString(), testEnv(queue));
      const { retries } = await deliver(queue.sent, testEnv(queue));
      expect(retries).toEqual([]);
      const [record] = await sendRecords();
      expect(record?.status).toBe('failed');
      expect(record?.reason).toMatch(/breaks the contract: (getVisibility|getAnswerHistory): response field `\w+`/);
      expect(resend.calls).toHaveLength(0);
    } finally {
      vi.unstubAllGlobals();
      await clearDigests();
    }
  });
});
