/**
 * The spec's Authentication, Errors and Limits rules and Endpoints rules 1-6,
 * for every operation of the table, through the Worker.
 */
import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorBodySchema } from '../src/contract/schemas/errors';
import { operationList } from '../src/contract/operations';
import { api, KEYS, ratePolicyOf, rateLimitOf, validPath, withParam } from './helpers';

interface ErrorJson {
  error: { code: string; message: string; param?: string };
}

/** Asserts the exact error shape of DESIGN section 3 and returns it. */
async function expectError(response: Response, status: number, code: string, param?: string): Promise<ErrorJson> {
  const body = (await response.json()) as ErrorJson;
  expect({ status: response.status, code: body.error.code, param: body.error.param }).toEqual({ status, code, param });
  expect(errorBodySchema().parse(body)).toEqual(body);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(response.headers.get('x-request-id')).toBeTruthy();
  expect(ratePolicyOf(response)).toBe('q=60;w=60');
  return body;
}

const brandScoped = operationList.filter((op) => op.scope !== 'account');
const fixed = operationList.filter((op) => op.window.kind === 'fixed');
const dated = operationList.filter((op) => op.window.kind === 'dated');
const proOnly = operationList.filter((op) => op.plan === 'pro_or_growth');

describe.each(operationList)('$id ($path)', (op) => {
  it('answers 401 invalid_api_key without a key, with an unknown key and with a revoked key', async () => {
    const path = validPath(op.id);
    await expectError(await api(path, { key: null }), 401, 'invalid_api_key');
    await expectError(await api(path, { key: 'not_a_key' }), 401, 'invalid_api_key');
    await expectError(await api(path, { key: KEYS.revoked }), 401, 'invalid_api_key');
    await expectError(await api(path, { key: null, headers: { authorization: `Basic ${btoa('demo_pro_single:')}` } }), 401, 'invalid_api_key');
  });

  it('answers 403 plan_inactive for an inactive plan', async () => {
    await expectError(await api(validPath(op.id), { key: KEYS.inactive }), 403, 'plan_inactive');
  });

  it('refuses an unknown parameter by name, and a parameter given twice', async () => {
    const path = validPath(op.id);
    await expectError(await api(withParam(path, 'bogus', '1')), 400, 'invalid_parameter', 'bogus');
    await expectError(await api(withParam(path, '', '1')), 400, 'invalid_parameter', '');
    if (op.scope !== 'account') await expectError(await api(withParam(withParam(path, 'brand_id', '1'), 'brand_id', '1')), 400, 'invalid_parameter', 'brand_id');
  });

  it('answers 405 method_not_allowed with Allow for other methods', async () => {
    const response = await api(validPath(op.id), { method: 'POST' });
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    await expectError(response, 405, 'method_not_allowed');
  });
});

describe.each(brandScoped)('brand rules: $id', (op) => {
  it('needs brand_id on a multi-brand account (400 brand_required) and refuses brands of other accounts (404 brand_not_found)', async () => {
    const path = validPath(op.id);
    await expectError(await api(path, { key: KEYS.growth }), 400, 'brand_required');
    await expectError(await api(withParam(path, 'brand_id', '999'), { key: KEYS.growth }), 404, 'brand_not_found');
    await expectError(await api(withParam(path, 'brand_id', '1'), { key: KEYS.growth }), 404, 'brand_not_found');
    await expectError(await api(withParam(path, 'brand_id', 'two'), { key: KEYS.growth }), 400, 'invalid_parameter', 'brand_id');
  });
});

describe.each(brandScoped.filter((op) => op.scope === 'brand'))('market rules: $id', (op) => {
  it('answers 404 not_found for a market the brand does not have, 400 for a malformed one', async () => {
    const path = validPath(op.id);
    await expectError(await api(withParam(path, 'market', 'fr')), 404, 'not_found');
    await expectError(await api(withParam(path, 'market', '12345')), 404, 'not_found');
    await expectError(await api(withParam(path, 'market', 'u$')), 400, 'invalid_parameter', 'market');
  });
});

describe.each(fixed)('fixed window: $id', (op) => {
  it.each(['days', 'from', 'to'])('refuses %s', async (param) => {
    const body = await expectError(await api(withParam(validPath(op.id), param, param === 'days' ? '7' : '2026-01-01')), 400, 'invalid_parameter', param);
    expect(body.error.message).toMatch(/fixed window/);
  });
});

describe.each(dated)('date parameters: $id', (op) => {
  it('refuses impossible dates, `from` after `to`, `to` after today and ranges over 90 days', async () => {
    const path = validPath(op.id);
    await expectError(await api(withParam(path, 'from', '2026-02-30')), 400, 'invalid_parameter', 'from');
    await expectError(await api(withParam(withParam(path, 'from', '2026-03-10'), 'to', '2026-03-01')), 400, 'invalid_parameter', 'from');
    await expectError(await api(withParam(path, 'to', '2999-01-01')), 400, 'invalid_parameter', 'to');
    await expectError(await api(withParam(withParam(path, 'from', '2026-01-01'), 'to', '2026-04-02')), 400, 'invalid_parameter', 'from');
    await expectError(await api(withParam(path, 'days', '91')), 400, 'invalid_parameter', 'days');
    await expectError(await api(withParam(path, 'days', '0')), 400, 'invalid_parameter', 'days');
  });
});

describe.each(proOnly)('plan: $id', (op) => {
  it('answers 403 feature_not_in_plan on Starter', async () => {
    await expectError(await api(validPath(op.id), { key: KEYS.starter }), 403, 'feature_not_in_plan');
  });
});

describe('integrations', () => {
  it('answer 409 integration_not_connected for the brand without them', async () => {
    await expectError(await api('/search-performance?brand_id=3', { key: KEYS.growth }), 409, 'integration_not_connected');
    await expectError(await api('/ai-crawlers?brand_id=3', { key: KEYS.growth }), 409, 'integration_not_connected');
  });
  it('let the tracking script stand in for the edge-network integration on /ai-crawlers', async () => {
    expect((await api('/ai-crawlers')).status).not.toBe(409);
  });
});

describe('check order (DESIGN section 3)', () => {
  it('key before brand, plan and parameters', async () => {
    await expectError(await api('/tasks?bogus=1', { key: KEYS.revoked }), 401, 'invalid_api_key');
  });
  it('brand before plan and parameters', async () => {
    await expectError(await api('/tasks?bogus=1', { key: KEYS.growth }), 400, 'brand_required');
  });
  it('plan before parameters', async () => {
    await expectError(await api('/tasks?bogus=1', { key: KEYS.starter }), 403, 'feature_not_in_plan');
    await expectError(await api('/visibility?bogus=1', { key: KEYS.inactive }), 403, 'plan_inactive');
  });
  it('brand and plan before a repeated parameter', async () => {
    await expectError(await api('/topics?days=7&days=7', { key: KEYS.growth }), 400, 'brand_required');
    await expectError(await api('/topics?days=7&days=7', { key: KEYS.inactive }), 403, 'plan_inactive');
    await expectError(await api('/topics?days=7&days=7'), 400, 'invalid_parameter', 'days');
  });
  it('parameters before integration, rate limit before integration, integration before item lookup', async () => {
    await expectError(await api('/search-performance?brand_id=3&days=0', { key: KEYS.growth }), 400, 'invalid_parameter', 'days');
    await expectError(await api('/search-performance?brand_id=3&market=zz', { key: KEYS.growth }), 409, 'integration_not_connected');
  });
});

describe('paths and headers', () => {
  it('answers 404 not_found for an unknown path, with or without a key', async () => {
    await expectError(await api('/nope'), 404, 'not_found');
    await expectError(await api('/topics/1101/extra', { key: null }), 404, 'not_found');
    await expectError(await api('/visibility/'), 404, 'not_found');
    await expectError(await api('/topics/1101/'), 404, 'not_found');
  });
  it('echoes a sane X-Request-Id and replaces anything else', async () => {
    expect((await api('/markets', { headers: { 'x-request-id': 'trace-42' } })).headers.get('x-request-id')).toBe('trace-42');
    const replaced = (await api('/markets', { headers: { 'x-request-id': 'a b;'.repeat(100) } })).headers.get('x-request-id');
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
  });
  it('answers HEAD like GET, without a body', async () => {
    const response = await api('/visibility', { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.text()).toBe('');
  });
  it('serves the OpenAPI document without a key', async () => {
    const response = await api('/openapi.json', { key: null });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { openapi: string }).openapi).toBe('3.1.0');
  });
});

describe('limits', () => {
  afterEach(() => vi.useRealTimers());

  it('admits 60 requests per rolling minute per key, then 429 rate_limited with Retry-After', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.parse('2026-11-20T10:00:00Z');
    vi.setSystemTime(start);
    expect((await api('/markets')).status).toBe(200);
    vi.setSystemTime(start + 30_000);
    let last: Response | undefined;
    for (let i = 2; i <= 60; i++) {
      last = await api('/markets');
      expect(last.status).toBe(200);
    }
    expect(rateLimitOf(last!)).toEqual({ r: 0, t: 30 });
    const refused = await api('/markets');
    // The first request leaves the window 30 s from now.
    expect(refused.headers.get('retry-after')).toBe('30');
    await expectError(refused, 429, 'rate_limited');
    // Another key has its own minute.
    expect((await api('/markets', { key: KEYS.starter })).status).toBe(200);
    // A rolling minute: once the first request is a minute old, exactly one slot is free again.
    vi.setSystemTime(start + 60_001);
    const again = await api('/markets');
    expect(again.status).toBe(200);
    expect(rateLimitOf(again)!.r).toBe(0);
    await expectError(await api('/markets'), 429, 'rate_limited');
  });

  it('refuses a parameter error before counting it against the minute', async () => {
    for (let i = 0; i < 3; i++) await api('/markets?bogus=1');
    expect(rateLimitOf(await api('/markets'))!.r).toBe(59);
  });

  it('answers 429 quota_exceeded once the month reads are spent, until the month ends', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-11-30T23:59:00Z'));
    await env.DB.prepare("INSERT INTO usage (account_id, month, reads) VALUES (3, '2026-11', 2000)").run();
    const refused = await api('/visibility', { key: KEYS.starter });
    expect(refused.headers.get('retry-after')).toBe('60');
    await expectError(refused, 429, 'quota_exceeded');
    vi.setSystemTime(Date.parse('2026-12-01T00:00:01Z'));
    expect((await api('/visibility', { key: KEYS.starter })).status).toBe(200);
  });

  it('counts successful reads, not refused ones', async () => {
    const reads = () => env.DB.prepare('SELECT coalesce(sum(reads), 0) AS n FROM usage WHERE account_id = 1').first<{ n: number }>();
    await api('/markets');
    await api('/markets?bogus=1');
    await vi.waitFor(async () => expect((await reads())?.n).toBe(1));
  });
});
