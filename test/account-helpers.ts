/** A browser's requests to the account pages, shared by the tests that sign in (test/account.test.ts and others). */
import { SELF } from 'cloudflare:test';
import { expect } from 'vitest';
import { KEYS } from './helpers';

export const BASE = 'https://edge.test';
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** A page, as a browser asks for it, with the session's cookie when given; redirects are answers. */
export const get = (path: string, cookie?: string) => SELF.fetch(`${BASE}${path}`, { headers: { accept: BROWSER_ACCEPT, ...(cookie ? { cookie } : {}) }, redirect: 'manual' });

/** A form posted from a page of this site (its `Origin`, unless `null` or another is given). */
export function post(path: string, fields: Record<string, string | string[]>, o: { cookie?: string; origin?: string | null; address?: string } = {}) {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: BROWSER_ACCEPT };
  if (o.origin !== null) headers.origin = o.origin ?? BASE;
  if (o.cookie) headers.cookie = o.cookie;
  if (o.address) headers['cf-connecting-ip'] = o.address;
  return SELF.fetch(`${BASE}${path}`, { method: 'POST', headers, body, redirect: 'manual' });
}

/** Signs in; returns the cookie to send and the session's form token (read from the page, as a browser would). */
export async function signIn(key: string = KEYS.pro): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const response = await post('/account/sign-in', { api_key: key });
  expect(response.status).toBe(303);
  expect(response.headers.get('location')).toBe('/account');
  const setCookie = response.headers.get('set-cookie')!;
  const cookie = setCookie.split(';')[0]!;
  const page = await get('/account', cookie);
  expect(page.status).toBe(200);
  const csrf = /name="csrf" value="([0-9a-f]{64})"/.exec(await page.text())![1]!;
  return { cookie, csrf, setCookie };
}
