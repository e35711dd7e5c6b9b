/**
 * Shape alignment (src/discovery/align.ts) and the envelope found by it (src/discovery/envelope.ts), on the demo
 * origin's bodies with every name replaced by a random token: where names say nothing.
 */
import { env } from 'cloudflare:test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { objectShape } from '../src/contract/conform';
import { API_BASE, examplePath, type OperationId, operations } from '../src/contract/operations';
import { zodSide } from '../src/contract/zod-side';
import { alignObject, alignWithMargins, FORCED } from '../src/discovery/align';
import { findEnvelope } from '../src/discovery/envelope';
import { proposeOperation } from '../src/discovery/propose';
import { CONFIDENCE_THRESHOLD } from '../src/discovery/report';
import { originTransport } from '../src/origin/transport';
import { KEYS } from './helpers';

const zs = await zodSide();
const origin = originTransport(env.DB);
async function ours(id: OperationId): Promise<Record<string, unknown>> {
  const response = await origin(new Request(`http://origin.internal${API_BASE}${examplePath(operations[id])}`, { headers: { authorization: `Bearer ${KEYS.pro}` } }));
  return (await response.json()) as Record<string, unknown>;
}
const shapeOf = (id: OperationId) => objectShape(zs.response(id))!;

type Json = Record<string, unknown>;
/** Every field name at every depth replaced by `rename(name)`, lists and values kept. */
function renamed(value: unknown, rename: (name: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => renamed(v, rename));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [rename(k), renamed(v, rename)]));
}
/** One token per name, the same for a name everywhere: a service whose words are its own. */
const tokens = (seed: number) => {
  const taken = new Map<string, string>();
  return (name: string) => {
    let token = taken.get(name);
    if (!token) {
      let h = seed;
      for (const ch of name) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
      taken.set(name, (token = `f_${h.toString(36).slice(-5)}_${taken.size}`));
    }
    return token;
  };
};

describe('shape alignment', () => {
  it('pairs the fields of an answer named in tokens as the contract names them', async () => {
    const body = await ours('getAnswerHistory');
    const rename = tokens(7);
    const { pairs } = alignObject(shapeOf('getAnswerHistory'), [renamed(body, rename) as Json]);
    // Each list, object and time finds its own field: their shapes say what they are.
    for (const name of ['questions', 'counts', 'generated_at', 'market']) expect(pairs.get(name)).toBe(rename(name));
  });

  it('scores an answer the same whatever its names are (fast-check over token namings, seeded)', async () => {
    const body = await ours('getVisibility');
    const shape = shapeOf('getVisibility');
    const plain = alignObject(shape, [body]).score;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
        expect(alignObject(shape, [renamed(body, tokens(seed)) as Json]).score).toBeCloseTo(plain, 9);
      }),
      { seed: 57, numRuns: 40 },
    );
  });

  it('tells twins apart only by a margin: two windows of two dates each are a question, a list of questions is not', async () => {
    const body = renamed(await ours('getAnswerHistory'), tokens(3)) as Json;
    const { margins } = alignWithMargins(shapeOf('getAnswerHistory'), [body]);
    expect(margins.get('period')!).toBeLessThan(FORCED);
    expect(margins.get('previous_period')!).toBeLessThan(FORCED);
    expect(margins.get('questions')!).toBeGreaterThanOrEqual(FORCED);
  });

  it("reads an object written flat in its parent from the parent's own fields", async () => {
    const { market, ...rest } = (await ours('getVisibility')) as { market: { id: number; code: string } } & Json;
    const body = renamed({ ...rest, m_i: market.id, m_c: market.code }, tokens(11)) as Json;
    const { pairs, flat } = alignObject(shapeOf('getVisibility'), [body]);
    expect(pairs.get('market')).toBe('.');
    expect([...flat.get('market')!.keys()].sort()).toEqual(['code', 'id']);
  });

  it('reads as an object written flat the keys that share first words, not a count of the same form beside them', async () => {
    const { open_counts: counts, ...rest } = (await ours('listTasks')) as { open_counts: Record<string, number> } & Json;
    const layers = Object.keys(counts);
    // A count beside the four, first, of the same form; the four under first words of their own, as a house writes them.
    const written = layers.map((layer, i) => [`QvZr${['Ka', 'Lo', 'Mi', 'Nu'][i]}`, counts[layer]!] as const);
    const body = { Wq: Math.max(...Object.values(counts)) + 1, ...(renamed(rest, tokens(19)) as Json), ...Object.fromEntries(written) };
    const { pairs, flat } = alignObject(shapeOf('listTasks'), [body]);
    expect(pairs.get('open_counts')).toBe('.');
    expect([...flat.get('open_counts')!.values()].sort()).toEqual(written.map(([key]) => key).sort());
  });
});

describe('the envelope by its shape', () => {
  it('is the wrapper that makes the rest align, whatever it and what lies beside it are called', async () => {
    const rename = tokens(5);
    for (const id of ['getVisibility', 'listMarkets', 'getAnswerHistory', 'getTask'] as const) {
      const { generated_at: at, ...rest } = await ours(id);
      // The body under a token, its timestamp moved into the meta beside it with a request id and a version.
      const answer = renamed({ s: 'ok', d: rest, m: { request_id: 'req_1x', api_version: 'v1', took_ms: 12, as_of: at } }, rename) as Json;
      const envelope = findEnvelope(shapeOf(id), answer);
      expect(envelope, id).toMatchObject({ at: rename('d'), in_map: true });
      expect(envelope!.confidence, id).toBeGreaterThanOrEqual(CONFIDENCE_THRESHOLD);
    }
  });

  it('is none where the answer itself is the body, named in tokens or not', async () => {
    for (const id of ['getTask', 'getOverview', 'listBrands'] as const) {
      const body = await ours(id);
      expect(findEnvelope(shapeOf(id), body), id).toBeNull();
      expect(findEnvelope(shapeOf(id), renamed(body, tokens(9)) as Json), id).toBeNull();
    }
  });

  it('is stored, and the twins the shape leaves are told apart by the rules, not by their order', async () => {
    const rename = tokens(13);
    const body = await ours('getAnswerHistory');
    const { report, map } = proposeOperation(zs, 'getAnswerHistory', renamed({ d: body, m: { took_ms: 12 } }, rename) as Json, CONFIDENCE_THRESHOLD);
    expect(map.envelope).toBe(rename('d'));
    // The two windows are twins by shape; the window before ends before the period starts.
    expect(map.fields).toMatchObject({ period: rename('period'), previous_period: rename('previous_period') });
    expect(report.fields.period).toMatchObject({ by: 'evidence' });
    expect(report.fields.previous_period).toMatchObject({ by: 'evidence' });
  });

  it('stores nothing under an envelope still in question', async () => {
    const body = await ours('getAnswerHistory');
    // Two wrappers alike, each half of the body: neither is clearly it.
    const { questions, counts, ...rest } = body;
    const { map } = proposeOperation(zs, 'getAnswerHistory', renamed({ a: { ...rest, questions }, b: { ...rest, counts } }, tokens(17)) as Json, CONFIDENCE_THRESHOLD);
    if (map.envelope === undefined) expect(map.fields).toEqual({});
  });
});
