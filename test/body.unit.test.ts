/**
 * A body read again: the same text, read a second time (a cache HIT read by
 * each MCP tool call, by each subscriber's digest), is not checked against
 * the schema again, and each reader still gets data of its own. And a value
 * of a closed enumeration no rule maps is named wherever it is left out.
 */
import { env } from 'cloudflare:test';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkResponseBody, REMEMBERED_MAX_CHARS } from '../src/contract/body';
import { spelledValue } from '../src/contract/enum-spelling';
import { STATES } from '../src/contract/enums';
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

describe('checkResponseBody, a value of a closed enumeration no rule maps', () => {
  const prompts = async () => {
    const answer = await originTransport(env.DB)(new Request(`http://origin.internal${API_BASE}/prompts`, { headers: { authorization: `Bearer ${KEYS.pro}` } }));
    return (await answer.json()) as { prompts: { engines: { state: string | null }[] }[] };
  };
  /** Words no spelling rule reads as one of our answer states (a service's own, met after discovery). */
  const unmapped = fc.stringMatching(/^[a-z][a-z_]{2,14}$/).filter((word) => !(STATES as readonly string[]).includes(word) && spelledValue(word, STATES) === undefined);

  it('is named with its field where a feature leaves the part out, never dropped unsaid', async () => {
    const body = await prompts();
    fc.assert(
      fc.property(unmapped, fc.nat(), (word, at) => {
        const cells = body.prompts.flatMap((p) => p.engines).filter((c) => c.state !== null);
        const cell = cells[at % cells.length]!;
        const was = cell.state;
        cell.state = word;
        const text = JSON.stringify({ data: body });
        cell.state = was;
        const read = checkResponseBody(zs, 'getPromptMatrix', text, undefined, ['prompts']);
        expect(read.ok && read.absent).toEqual(['prompts']);
        expect(read.ok && read.unreadable).toEqual([{ path: 'prompts[].engines[].state', said: `\`${word}\` for \`prompts[].engines[].state\`, none of ${STATES.join(', ')}` }]);
        // Where the feature needs it, the read fails naming the value, not only the field.
        const strict = checkResponseBody(zs, 'getPromptMatrix', text);
        expect(strict.ok).toBe(false);
        expect(!strict.ok && strict.message).toContain(`is \`${word}\`, none of the contract's values (${STATES.join(', ')})`);
      }),
      { seed: 43, numRuns: 40 },
    );
  });

  it('says nothing when the part is simply not there', async () => {
    const { prompts: _, ...rest } = await prompts();
    const read = checkResponseBody(zs, 'getPromptMatrix', JSON.stringify({ data: rest }), undefined, ['prompts']);
    expect(read.ok && [read.absent, read.unreadable]).toEqual([['prompts'], []]);
  });
});
