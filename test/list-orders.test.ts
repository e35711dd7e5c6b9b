/**
 * The orders of src/contract/list-orders.ts hold on the reference origin's answers (discovery reads them as
 * evidence): every order is judged on lists that move, and none is broken, for a key with one brand and each
 * brand of a key with two, at each operation's example request (a rival's, for each rival the overview names).
 */
import { env } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { LIST_ORDERS, orderKept } from '../src/contract/list-orders';
import { API_BASE, examplePath, operations } from '../src/contract/operations';
import { valuesAtPath } from '../src/contract/paths';
import { originTransport } from '../src/origin/transport';

async function read(key: string, path: string, brand?: number): Promise<unknown> {
  const url = new URL(`http://origin.internal${API_BASE}${path}`);
  if (brand !== undefined) url.searchParams.set('brand_id', String(brand));
  const response = await originTransport(env.DB)(new Request(url, { headers: { authorization: `Bearer ${key}` } }));
  return response.status === 200 ? response.json() : undefined;
}

it("holds every list order the contract states on the origin's answers", async () => {
  const judged = new Map(LIST_ORDERS.map((order) => [order, { lists: 0, steps: 0, broken: 0 }]));
  for (const [key, brands] of [
    ['demo_pro_single', [undefined]],
    ['demo_growth_multi', [1, 2]],
  ] as const)
    for (const brand of brands)
      for (const order of LIST_ORDERS) {
        // A rival's answer for each rival of the overview: the example's rival may win no topic.
        const rivals = order.operation === 'getCompetitor' ? (valuesAtPath(await read(key, '/overview', brand), 'competition.rivals[].name') as string[]) : [];
        const paths = order.operation === 'getCompetitor' ? rivals.map((name) => `/competitors/${encodeURIComponent(name)}`) : [examplePath(operations[order.operation])];
        for (const path of paths) {
          const kept = orderKept(await read(key, path, brand), order);
          const total = judged.get(order)!;
          for (const k of ['lists', 'steps', 'broken'] as const) total[k] += kept[k];
        }
      }
  const wrong = [...judged].filter(([, t]) => t.lists === 0 || t.steps === 0 || t.broken > 0).map(([o, t]) => `${o.operation} ${o.list}[].${o.by}: ${JSON.stringify(t)}`);
  expect(wrong).toEqual([]);
});

it('finds a list out of order', () => {
  const order = LIST_ORDERS.find((o) => o.operation === 'listPages' && o.list === 'pages')!;
  expect(orderKept({ pages: [{ citations: 3 }, { citations: 5 }, { citations: 1 }] }, order)).toEqual({ lists: 1, steps: 1, broken: 1 });
  expect(orderKept({ pages: [{ citations: 5 }, { citations: 5 }, { citations: null }] }, order)).toEqual({ lists: 1, steps: 0, broken: 0 });
});
