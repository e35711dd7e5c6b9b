/**
 * The product routes' matcher (src/lib/router.ts) on a small table of its own:
 * itty-router's matching, with the answers the Worker gives on top of it
 * (405 with the path's Allow, HEAD with GET, strict percent-decoding,
 * trailing slashes). test/hardening.test.ts and test/fuzz-product.test.ts hold
 * the Worker's real tables to the same answers.
 */
import { describe, expect, it } from 'vitest';
import { type Handler, matchRoute, type Route } from './router';

const answer =
  (name: string): Handler<null> =>
  () =>
    new Response(name);
const byId = answer('links/{id}');
const listLinks = answer('links');
const TABLE: Route<null>[] = [
  { path: '/reports/links', answers: 'json', methods: { GET: listLinks, POST: answer('create') } },
  { path: '/reports/links/{id}', answers: 'json', methods: { GET: byId, DELETE: answer('delete') } },
  // Never reached: the route above names the same paths, and the first route wins.
  { path: '/reports/links/{other}', answers: 'json', methods: { PUT: answer('shadowed') } },
  { path: '/x/{file}.csv', answers: 'text', methods: { GET: answer('csv') } },
  { path: '/teams/{team}/members/{member}', answers: 'json', methods: { GET: answer('member') } },
  // A path and the same with a trailing slash: two routes (as the report links' `/r` and `/r/`).
  { path: '/r', answers: 'page', methods: { GET: answer('r') } },
  { path: '/r/', answers: 'page', methods: { GET: answer('r/') } },
];

describe('matchRoute', () => {
  it('finds the route and its handler, with each parameter percent-decoded', async () => {
    const found = await matchRoute(TABLE, 'GET', '/reports/links/rl%20a%2Fb%C3%BC');
    expect(found).toMatchObject({ kind: 'found', route: TABLE[1], handler: byId, params: { id: 'rl a/bü' } });
    expect(await matchRoute(TABLE, 'GET', '/teams/a%2Bb/members/%F0%9F%99%82')).toMatchObject({ kind: 'found', params: { team: 'a+b', member: '🙂' } });
    expect(await matchRoute(TABLE, 'GET', '/x/week.1.csv')).toMatchObject({ kind: 'found', params: { file: 'week.1' } });
    expect(await matchRoute(TABLE, 'GET', '/reports/links')).toMatchObject({ kind: 'found', handler: listLinks, params: {} });
  });

  it('answers HEAD with the GET handler', async () => {
    expect(await matchRoute(TABLE, 'HEAD', '/reports/links/rl_1')).toMatchObject({ kind: 'found', handler: byId });
  });

  it("is method_not_allowed with the path's own Allow, HEAD after GET, whatever the parameter says", async () => {
    expect(await matchRoute(TABLE, 'PATCH', '/reports/links')).toEqual({ kind: 'method_not_allowed', route: TABLE[0], allow: 'GET, HEAD, POST' });
    expect(await matchRoute(TABLE, 'POST', '/reports/links/rl_1')).toEqual({ kind: 'method_not_allowed', route: TABLE[1], allow: 'GET, HEAD, DELETE' });
    expect(await matchRoute(TABLE, 'OPTIONS', '/reports/links/%ZZ')).toMatchObject({ kind: 'method_not_allowed', allow: 'GET, HEAD, DELETE' });
  });

  it('is bad_encoding naming the parameter for an escape that does not decode, never an exception', async () => {
    for (const bad of ['%ZZ', '%', '%E0%A4%A', 'ok%C3%28']) {
      expect(await matchRoute(TABLE, 'DELETE', `/reports/links/${bad}`)).toEqual({ kind: 'bad_encoding', route: TABLE[1], param: 'id' });
      expect(await matchRoute(TABLE, 'GET', `/teams/t/members/${bad}`)).toMatchObject({ kind: 'bad_encoding', param: 'member' });
    }
  });

  it('takes a trailing slash, an empty segment or another case for another path', async () => {
    for (const path of [
      '/reports/links/',
      '/reports/links/rl_1/',
      '/reports/links//',
      '/reports/links/rl_1//',
      '/reports//links',
      '/Reports/links',
      '/reports/links/rl_1/x',
      '/x/week.csv.gz',
      '/x/.csv',
      '/r//',
      '//r',
    ]) {
      expect([path, await matchRoute(TABLE, 'GET', path)]).toEqual([path, { kind: 'not_found' }]);
    }
    expect(await matchRoute(TABLE, 'GET', '/r')).toMatchObject({ kind: 'found', route: TABLE[5] });
    expect(await matchRoute(TABLE, 'GET', '/r/')).toMatchObject({ kind: 'found', route: TABLE[6] });
  });

  it("gives a path to the first route that matches it: the later one's methods are not asked", async () => {
    expect(await matchRoute(TABLE, 'PUT', '/reports/links/rl_1')).toMatchObject({ kind: 'method_not_allowed', route: TABLE[1] });
  });

  it('refuses a route path that itty-router would read as syntax, or with an empty segment', async () => {
    for (const path of ['/a/:id', '/a/*', '/a/b+', '/a//', '/a/(b)', '/a//b', 'a']) {
      await expect(matchRoute([{ path, answers: 'json', methods: { GET: answer('x') } }], 'GET', '/a/b')).rejects.toThrow(path);
    }
  });
});
