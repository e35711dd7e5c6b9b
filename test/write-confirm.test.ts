/**
 * A write's check of its key fails closed (issue 58 item 2): the account's forms ask the upstream about the key
 * now, and when it cannot be asked now (the key's 60 upstream reads of the minute spent, the upstream slower than
 * the soft deadline, or down) the form answers 503 "try again in N seconds" with `Retry-After` and writes nothing.
 * The pages keep their documented bound: they are still served from the cache.
 */
import { env, SELF } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/lib/hash';
import { get, post, signIn } from './account-helpers';
import { clearReports } from './reports-helpers';
import { FakeUpstream, freshKey, restoreUpstream } from './proxy-upstream';
import { useProxyTimeoutForTests, useServicesForTests } from './seams';

let up: FakeUpstream;
beforeEach(async () => {
  await clearReports();
  up = new FakeUpstream().install();
  // The client's retry of a failed read waits through this seam: no test sleeps.
  useServicesForTests({ sleep: async () => {} });
});
afterEach(() => {
  up.hold = undefined;
  restoreUpstream();
  useProxyTimeoutForTests();
  useServicesForTests();
});

const linkRows = async (key: string) =>
  Number(
    await env.DB.prepare('SELECT COUNT(*) AS n FROM report_links WHERE key_hash = ?')
      .bind(await sha256Hex(key))
      .first('n'),
  );

/** A signed-in key with one share link made while all was well: what the forms below try to change. */
async function signedInWithLink() {
  const key = freshKey('confirm');
  const { cookie, csrf } = await signIn(key);
  const made = await post('/account/links', { csrf, kind: 'weekly', scope: '1:us', days: '7' }, { cookie });
  expect(made.status).toBe(200);
  const id = /data-link="(rl_[a-z0-9]+)"/.exec(await (await get('/account/links', cookie)).text())![1]!;
  return { key, cookie, csrf, id };
}

/** Both forms refused with a wait, nothing written, and the page still shown from the cache. */
async function expectRefusedWithWait(s: Awaited<ReturnType<typeof signedInWithLink>>, wait: (seconds: number) => void) {
  const rows = await linkRows(s.key);
  for (const [path, fields] of [
    ['/account/links', { csrf: s.csrf, kind: 'weekly', scope: '1:us', days: '7' }],
    ['/account/links/revoke', { csrf: s.csrf, id: s.id }],
  ] as const) {
    const refused = await post(path, fields, { cookie: s.cookie });
    expect([path, refused.status]).toEqual([path, 503]);
    const seconds = Number(refused.headers.get('retry-after'));
    wait(seconds);
    expect(await refused.text()).toContain(`so nothing was changed. Try again in ${seconds} seconds.`);
  }
  expect(await linkRows(s.key)).toBe(rows);
  expect((await get('/account/links', s.cookie)).status).toBe(200);
}

describe('a form whose key the upstream cannot confirm now writes nothing and says when to try again', () => {
  it("the key's 60 upstream reads of the minute spent: Retry-After is when the oldest leaves the minute", async () => {
    const s = await signedInWithLink();
    for (let id = 1; ; id++) {
      const read = await SELF.fetch(`https://edge.test/api/v1/topics/${id}`, { headers: { authorization: `Bearer ${s.key}` } });
      await read.arrayBuffer();
      if (read.status === 429) break;
      expect(id).toBeLessThanOrEqual(60);
    }
    await expectRefusedWithWait(s, (seconds) => expect(seconds).toBeGreaterThan(0));
  });

  it('the upstream slower than the soft deadline: no stale answer stands for it', async () => {
    const s = await signedInWithLink();
    let release = () => {};
    up.hold = new Promise((resolve) => {
      release = resolve;
    });
    // The soft deadline passes at once, before the held upstream answers; then it answers, into the cache.
    useProxyTimeoutForTests((_ms, expire) => {
      expire();
      release();
      return () => {};
    });
    await expectRefusedWithWait(s, (seconds) => expect(seconds).toBe(5));
  });

  it('the upstream down', async () => {
    const s = await signedInWithLink();
    up.fault = 'network';
    await expectRefusedWithWait(s, (seconds) => expect(seconds).toBe(30));
  });

  it('a key the upstream refuses writes nothing, even within 2 s of its last good answer', async () => {
    const s = await signedInWithLink();
    const rows = await linkRows(s.key);
    up.fault = { status: 401, code: 'invalid_api_key' };
    const refused = await post('/account/links', { csrf: s.csrf, kind: 'weekly', scope: '1:us', days: '7' }, { cookie: s.cookie });
    expect(refused.status).toBe(303);
    expect(refused.headers.get('location')).toBe('/account/sign-in?note=revoked');
    expect(await linkRows(s.key)).toBe(rows);
  });
});
