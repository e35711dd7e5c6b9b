/**
 * A revoked key writes nothing, ever (issue 58 item 2): every route that writes with the API key it sends (each
 * non-GET operation the product document marks `apiKey`, so a new one is held here too) asks the upstream about
 * the key now. A key revoked upstream is refused (401) by each of them, and nothing is written, while its reads
 * are still served from the cache within the proxy's 5 minutes; a key whose budget is spent writes nothing either
 * (503 `key_unconfirmed` with Retry-After, in the API's error shape).
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, expect, it } from 'vitest';
import { productRoutes } from '../src/app/routes';
import { KEYS } from './helpers';
import { freshKey, restoreUpstream } from './proxy-upstream';
import { call } from './reports-helpers';
import { ReshapingUpstream, revocableUpstream } from './reshape';

afterEach(() => restoreUpstream());

interface Operation {
  security?: Record<string, string[]>[];
  responses?: Record<string, { description: string }>;
}

/** Every `METHOD path` of the route tables that writes with the caller's API key, as the product document says. */
async function keyedWrites(): Promise<[string, string][]> {
  const doc = (await (await SELF.fetch('https://edge.test/openapi.json')).json()) as { paths: Record<string, Record<string, Operation>> };
  const routes = productRoutes.flatMap((route) => Object.keys(route.methods).map((method) => [method, route.path] as [string, string]));
  const writes = routes.filter(([method, path]) => method !== 'GET' && method !== 'HEAD' && doc.paths[path]?.[method.toLowerCase()]?.security?.some((s) => 'apiKey' in s));
  // Each says it may answer 503 key_unconfirmed.
  for (const [method, path] of writes)
    expect([method, path, doc.paths[path]![method.toLowerCase()]!.responses?.['503']?.description]).toEqual([method, path, expect.stringContaining('`key_unconfirmed`')]);
  return writes;
}

/** What a write could leave behind: links, subscriptions, mail. */
const written = async () => {
  const [links, subscriptions, mail] = await Promise.all(
    ['report_links', 'digest_subscriptions', 'digest_outbox'].map(async (table) => Number(await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first('n'))),
  );
  return { links, subscriptions, mail };
};

/** A body each write accepts (a route not named here gets `{}`: the key is refused before the body is read). */
const BODIES: Record<string, unknown> = {
  '/reports/links': { market: 'us' },
  '/exports/links': { operation: 'listTopics', params: { market: 'us' } },
  '/digests/subscriptions': { email: 'lead@example.com', market: 'us' },
};

const send = (method: string, path: string, key: string) =>
  call(path, { key, method, ...(method === 'DELETE' ? {} : { body: JSON.stringify(BODIES[path] ?? {}), headers: { 'content-type': 'application/json' } }) });

it('a key revoked upstream writes through none of the keyed write routes, while its reads are still served from the cache', async () => {
  const upstream = revocableUpstream();
  const key = freshKey('revoked');
  const writes = await keyedWrites();
  for (const path of ['/reports/links', '/exports/links', '/digests/subscriptions', '/reports/weekly/send']) expect(writes.map(([, p]) => p)).toContain(path);
  // Made while the key was good: what the DELETE routes would remove.
  const ids: Record<string, string> = {};
  for (const base of Object.keys(BODIES)) {
    const made = (await (await send('POST', base, key)).json()) as { link?: { id: string }; subscription?: { id: string } };
    ids[base] = (made.link ?? made.subscription)!.id;
  }
  const reads = ['/reports/weekly?brand_id=1&market=us', '/api/v1/brands'];
  for (const path of reads) expect((await call(path, { key })).status).toBe(200);

  upstream.revoke();
  const before = await written();
  for (const path of reads) expect([path, (await call(path, { key })).status]).toEqual([path, 200]);
  for (const [method, template] of writes) {
    const path = template.replace('{id}', ids[template.replace('/{id}', '')] ?? 'unknown').replace('{view}', 'rivals');
    const refused = await send(method, `${path}${path.includes('?') || !/weekly|history|views/.test(path) ? '' : '?brand_id=1&market=us'}`, key);
    expect([method, template, refused.status]).toEqual([method, template, 401]);
  }
  expect(await written()).toEqual(before);
});

it('a key whose 60 upstream reads of the minute are spent makes no link: 503 key_unconfirmed, saying when to try again', async () => {
  new ReshapingUpstream(
    (body) => body,
    () => KEYS.pro,
  ).install();
  const key = freshKey('spent');
  for (let id = 1; ; id++) {
    const read = await call(`/api/v1/topics/${id}`, { key });
    await read.arrayBuffer();
    if (read.status === 429) break;
    expect(id).toBeLessThanOrEqual(60);
  }
  const before = await written();
  const refused = await send('POST', '/reports/links', key);
  expect(refused.status).toBe(503);
  const seconds = Number(refused.headers.get('retry-after'));
  expect(seconds).toBeGreaterThan(0);
  expect(await refused.json()).toEqual({
    error: { code: 'key_unconfirmed', message: `The Read API could not confirm your API key just now, so nothing was changed. Try again in ${seconds} seconds.` },
  });
  expect(await written()).toEqual(before);
});
