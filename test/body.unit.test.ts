/**
 * A body read again: the same text, read a second time (a cache HIT read by
 * each MCP tool call, by each subscriber's digest), is not checked against
 * the schema again, and each reader still gets data of its own.
 */
import { env } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkResponseBody, REMEMBERED_MAX_CHARS } from '../src/contract/body';
import { API_BASE } from '../src/contract/operations';
import { zodSide } from '../src/contract/zod-side';
import { originTransport } from '../src/origin/transport';
import { KEYS } from './helpers';

const zs = await zodSide();
const response = await originTransport(env.DB)(new Request(`http://origin.internal${API_BASE}/visibility`, { headers: { authorization: `Bearer ${KEYS.pro}` } }));
const visibility = (await response.json()) as Record<string, unknown>;

/** Counts the checks of the visibility schema from here on. */
const countChecks = () => vi.spyOn(zs.response('getVisibility'), 'safeParse');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('checkResponseBody, the same text again', () => {
  it('is not checked again, and each read gets its own copy of the checked data', () => {
    const text = JSON.stringify({ ...visibility, note: 'a field the contract does not know' });
    const first = checkResponseBody(zs, 'getVisibility', text);
    const checks = countChecks();
    const second = checkResponseBody(zs, 'getVisibility', text);
    expect(checks).not.toHaveBeenCalled();
    expect(first.ok && second.ok).toBe(true);
    if (!first.ok || !second.ok) return;
    // The checked data, not the text: the unknown field is dropped the second time too.
    expect(second.data).toEqual(first.data);
    expect(second.data).not.toHaveProperty('note');
    expect(second.asSent).toBe(true);
    (first.data as { score: number }).score = -1;
    expect(checkResponseBody(zs, 'getVisibility', text)).toMatchObject({ ok: true, data: { score: (visibility as { score: number }).score } });
  });

  it('checks a different text, so a broken body after a good one still fails', () => {
    const good = JSON.stringify(visibility);
    expect(checkResponseBody(zs, 'getVisibility', good).ok).toBe(true);
    const checks = countChecks();
    const broken = checkResponseBody(zs, 'getVisibility', JSON.stringify({ ...visibility, score: 'high' }));
    expect(checks).toHaveBeenCalled();
    expect(broken).toMatchObject({ ok: false, field: 'score' });
  });

  it('is remembered per operation: the same text read as another operation is checked as that one', () => {
    const text = JSON.stringify(visibility);
    expect(checkResponseBody(zs, 'getVisibility', text).ok).toBe(true);
    expect(checkResponseBody(zs, 'listBrands', text)).toMatchObject({ ok: false, field: 'brands' });
  });

  it('checks a body too long to keep each time it is read', () => {
    const long = JSON.stringify(visibility) + ' '.repeat(REMEMBERED_MAX_CHARS);
    expect(checkResponseBody(zs, 'getVisibility', long).ok).toBe(true);
    const checks = countChecks();
    expect(checkResponseBody(zs, 'getVisibility', long).ok).toBe(true);
    expect(checks).toHaveBeenCalledTimes(1);
  });
});

describe('checkResponseBody with a map', () => {
  it("reads a body that parses as sent through the map: a share under `percent` and an engine under a vendor's name mean another value", () => {
    const body = { ...visibility, score: 0.562 };
    const map = { fields: {}, convert: { score: 'percent' as const }, values: {} };
    const asSent = checkResponseBody(zs, 'getVisibility', JSON.stringify(body));
    expect(asSent).toMatchObject({ ok: true, asSent: true, data: { score: 0.562 } });
    expect(checkResponseBody(zs, 'getVisibility', JSON.stringify(body), map)).toMatchObject({ ok: true, asSent: false, data: { score: 56.2 } });
    // An empty map reads nothing otherwise: the body as sent, remembered as before.
    expect(checkResponseBody(zs, 'getVisibility', JSON.stringify(body), { fields: {}, convert: {}, values: {} })).toMatchObject({ ok: true, asSent: true, data: { score: 0.562 } });
  });
});
