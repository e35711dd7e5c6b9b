/**
 * The figures the contract states in two answers (src/contract/same-figures.ts)
 * are the same on the origin's answers, read as discovery reads them (the
 * default window; a topic, a task and a rival from the lists): each pair of
 * fields agrees for every thing both answers name, and each pair is compared
 * at least once, so a relation that never holds, or never applies, fails here.
 * The rules of src/contract/plausibility.ts hold on the same answers.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { API_BASE, OPERATION_IDS, type OperationId, operations } from '../src/contract/operations';
import { valuesAtPath } from '../src/contract/paths';
import { violationsOf } from '../src/contract/plausibility';
import { figurePairs, SAME_FIGURES, SAME_WITHIN } from '../src/contract/same-figures';
import { originTransport } from '../src/origin/transport';

const seen = new Map<string, Promise<Response>>();

async function read(key: string, id: OperationId, params: Record<string, string | number> = {}, brand?: number): Promise<unknown> {
  let path: string = operations[id].path;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...params, ...(brand !== undefined ? { brand_id: brand } : {}) }))
    if (path.includes(`{${name}}`)) path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
    else query.set(name, String(value));
  const url = `http://origin.internal${API_BASE}${path}?${query}`;
  // Each answer read once for both tests: the origin admits 60 reads a minute per key.
  const response = (
    await (seen.get(`${key} ${url}`) ?? seen.set(`${key} ${url}`, originTransport(env.DB)(new Request(url, { headers: { authorization: `Bearer ${key}` } }))).get(`${key} ${url}`)!)
  ).clone();
  // A brand without the integration an operation reads (Search Console) has no answer to hold a rule or a figure.
  if (response.status === 409) {
    expect([id, ((await response.json()) as { error: { code: string } }).error.code]).toEqual([id, 'integration_not_connected']);
    return undefined;
  }
  expect([id, response.status]).toEqual([id, 200]);
  return response.json();
}

/** Every answer each relation reads, for one key and brand: the lists first, then a few things they name. */
async function answersOf(key: string, brand?: number): Promise<Map<OperationId, unknown[]>> {
  const answers = new Map<OperationId, unknown[]>();
  const add = (id: OperationId, body: unknown) => body !== undefined && answers.set(id, [...(answers.get(id) ?? []), body]);
  // Every operation that takes nothing from another's answer (the contract's `paramsFrom`); the brands are read for the key.
  for (const id of OPERATION_IDS.filter((id) => !operations[id].paramsFrom)) add(id, await read(key, id, {}, id === 'listBrands' ? undefined : brand));
  // Then each of the others for the first few things those answers name.
  for (const id of OPERATION_IDS)
    for (const [param, from] of Object.entries(operations[id].paramsFrom ?? {}))
      for (const value of [...new Set(valuesAtPath(answers.get(from.operation as OperationId)![0], from.path))].slice(0, 2)) add(id, await read(key, id, { [param]: value as string | number }, brand));
  return answers;
}

describe('the rules of src/contract/plausibility.ts', () => {
  it('hold on every answer of the origin, for a key with one brand and each brand of a key with two', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const broken: string[] = [];
    const answered = new Set<OperationId>();
    for (const key of ['demo_pro_single', 'demo_growth_multi']) {
      const ids = valuesAtPath(await read(key, 'listBrands'), 'brands[].id') as number[];
      for (const brand of ids.length > 1 ? ids : [undefined]) {
        // Read at each operation's default `limit` (`query: {}`): a list shorter than it holds every item its counts cover.
        const answers = await answersOf(key, brand);
        for (const [id, bodies] of answers)
          for (const body of bodies) for (const v of violationsOf(id, body, { today, query: {} })) broken.push(`${key} ${brand ?? ''} ${id}: ${v.rule}: ${v.message}`);
        for (const id of answers.keys()) answered.add(id);
      }
    }
    expect(broken).toEqual([]);
    // Every operation was read somewhere (a brand without Search Console has no search answer; another has).
    expect(OPERATION_IDS.filter((id) => !answered.has(id))).toEqual([]);
  });
});

describe('same figures in two answers', () => {
  it("agree on the origin's answers for every thing both name, each pair compared", async () => {
    const compared = new Map<string, number>();
    const differ: string[] = [];
    for (const key of ['demo_pro_single', 'demo_growth_multi']) {
      const ids = valuesAtPath(await read(key, 'listBrands'), 'brands[].id') as number[];
      for (const brand of ids.length > 1 ? ids : [undefined]) {
        const answers = await answersOf(key, brand);
        for (const relation of SAME_FIGURES) {
          const [a, b] = relation.sides;
          for (const [pathA, pathB] of relation.fields) {
            const label = `${a.operation} ${pathA} = ${b.operation} ${pathB}`;
            for (const bodyA of answers.get(a.operation) ?? [])
              for (const bodyB of answers.get(b.operation) ?? []) {
                const expected = new Map(figurePairs(bodyB, pathB, b.key, b.tally));
                for (const [thing, value] of figurePairs(bodyA, pathA, a.key, a.tally)) {
                  if (!expected.has(thing)) continue;
                  const other = expected.get(thing);
                  if (typeof value === 'number' && typeof other === 'number' ? Math.abs(value - other) > SAME_WITHIN : value !== other) differ.push(`${label} (${key} ${thing}): ${value} vs ${other}`);
                  else compared.set(label, (compared.get(label) ?? 0) + 1);
                }
              }
          }
        }
      }
    }
    expect(differ).toEqual([]);
    const pairs = SAME_FIGURES.flatMap((r) => r.fields.map(([pathA, pathB]) => `${r.sides[0].operation} ${pathA} = ${r.sides[1].operation} ${pathB}`));
    expect(pairs.filter((label) => !compared.has(label))).toEqual([]);
  });

  it('pairs figures by the thing they are of, and leaves out items without a key', () => {
    const list = { topics: [{ id: 1, score: 50 }, { id: 2, score: null }, { score: 3 }] };
    expect(figurePairs(list, 'topics[].score', 'topics[].id')).toEqual([
      ['1', 50],
      ['2', null],
    ]);
    expect(figurePairs({ topic: { id: 1, score: 52.8 } }, 'topic.score', 'topic.id')).toEqual([['1', 52.8]]);
    expect(figurePairs({ score: 55.9 }, 'score')).toEqual([['', 55.9]]);
    // A key outside the figure's list names nothing in it.
    expect(figurePairs(list, 'topics[].score', 'brand_id')).toEqual([]);
    // A count: how many items of a list name each thing.
    expect(figurePairs({ prompts: [{ topic_id: 1 }, { topic_id: 2 }, { topic_id: 1 }] }, 'prompts[]', 'prompts[].topic_id', true)).toEqual([
      ['1', 2],
      ['2', 1],
    ]);
  });
});
