/**
 * The cache's admin endpoints, behind `Authorization: Bearer <ADMIN_TOKEN>`:
 *
 *   POST /admin/cache/purge  {"api_key": "..."} | {"brand_id": 2} | {"all": true}  ->  {"purged": n}
 *   GET  /admin/cache/stats  ->  {"hits": .., "misses": .., "stale": .., "upstream_calls": .., "upstream_errors": .., ...}
 *   GET  /admin/upstream/map ->  the upstream map (src/contract/upstream-map.ts), version 0 before one is stored
 *   PUT  /admin/upstream/map  {"version": n, "operations": {...}}  ->  the stored map, version n + 1 (n: the stored one; may be left out only before any is stored)
 *   POST /admin/upstream/discover  {"api_key": "...", "apply"?: true}  ->  the proposed map and how sure each field is
 *
 * A purge deletes from KV (global) and from this location's Cache API; other
 * locations' Cache API copies expire within EDGE_TIER_MAX_AGE_S.
 *
 * Routes that need more than the proxy (the compatibility check reads with
 * the features' needs) are added by the caller, behind the same token.
 */
import * as z from 'zod';
import { clientReader, discoverUpstreamMap, KEY_REFUSALS } from '../discovery/discover';
import type { DiscoveryReport } from '../discovery/report';
import { API_KEY_CHARACTERS, apiKeyProblem } from '../contract/access';
import { ApiError, errorResponse } from '../contract/errors';
import { requestIdOf } from '../contract/request-id';
import { type UpstreamMapInput, upstreamMapSchemas } from '../contract/schemas/upstream-map';
import { sameSecret } from '../lib/hash';
import { json, readBodyUpTo } from '../lib/http';
import { errorText } from '../lib/log';
import { matchRoute, type Route } from '../lib/router';
import { clientAddressOf } from './abuse';
import { apiFor } from './api';
import { hashApiKey, keyPrefix } from './cache-key';
import type { ProxyEnv } from './env';
import type { ProxyRuntime } from './handler';
import { readStats } from './stats';
import { ALL_ENTRIES, CacheStore } from './store';
import { MapVersionConflict, readStoredMap, readUpstreamMap, storeUpstreamMap } from './upstream-map';

export const ADMIN_BASE = '/admin/cache';
export const UPSTREAM_ADMIN_BASE = '/admin/upstream';
/** A map is a few KiB; 256 KiB is room for every operation with every field renamed, and bounds what a PUT reads. */
export const MAX_MAP_BODY_BYTES = 256 * 1024;
/** A purge's body is a few dozen bytes (an API key is at most 256): larger ones are refused unread. */
export const MAX_PURGE_BODY_BYTES = 1024;
/** A discovery's body is an API key and a flag: the same bound as a purge's. */
export const MAX_DISCOVER_BODY_BYTES = 1024;

export const PurgeBody = z.union([z.strictObject({ api_key: z.string().min(1) }), z.strictObject({ brand_id: z.number().int().positive() }), z.strictObject({ all: z.literal(true) })]);

export const DiscoverBody = z.strictObject({
  api_key: z
    .string()
    .min(1)
    .max(256)
    .refine((key) => apiKeyProblem(key) === null, { error: API_KEY_CHARACTERS })
    .describe('The key whose reads discovery makes, through the edge cache and within its budget. Never stored or logged.'),
  apply: z.boolean().default(false).describe('Store the proposed map as the next version (the entries of operations not read are kept).'),
});

export async function handleAdmin(request: Request, env: ProxyEnv, runtime: ProxyRuntime, routes: Route<AdminContext>[] = adminRoutes): Promise<Response> {
  let response: Response;
  try {
    response = await route(request, env, runtime, routes);
  } catch (error) {
    if (!(error instanceof ApiError)) console.error(JSON.stringify({ msg: 'admin failed', error: errorText(error) }));
    response = errorResponse(error, { 'cache-control': 'no-store' });
  }
  response.headers.set('x-request-id', requestIdOf(request.headers));
  return response;
}

export type AdminContext = { env: ProxyEnv; runtime: ProxyRuntime };

export const adminRoutes: Route<AdminContext>[] = [
  { path: `${ADMIN_BASE}/stats`, answers: 'json', methods: { GET: async (_, __, { env }) => json(await readStats(env.PROXY_STATS)) } },
  { path: `${ADMIN_BASE}/purge`, answers: 'json', methods: { POST: (request, _, admin) => purge(request, admin) } },
  {
    path: `${UPSTREAM_ADMIN_BASE}/map`,
    answers: 'json',
    methods: {
      GET: async (_, __, { env, runtime }) => json((await readUpstreamMap(env.CACHE, runtime.now)) ?? { version: 0, updated_at: null, operations: {} }),
      PUT: (request, _, admin) => putMap(request, admin),
    },
  },
  { path: `${UPSTREAM_ADMIN_BASE}/discover`, answers: 'json', methods: { POST: (request, _, admin) => discover(request, admin) } },
];

async function route(request: Request, env: ProxyEnv, runtime: ProxyRuntime, routes: Route<AdminContext>[]): Promise<Response> {
  const url = new URL(request.url);
  const found = await matchRoute(routes, request.method, url.pathname);
  if (found.kind === 'not_found') throw new ApiError('not_found', `No such admin endpoint: ${routes.map((r) => `${Object.keys(r.methods).join('/')} ${r.path}`).join(', ')}.`);
  // The token first: without it, not even which methods a path takes.
  await requireAdmin(request, env.ADMIN_TOKEN);
  if (found.kind === 'method_not_allowed') throw new ApiError('method_not_allowed', `${url.pathname} takes ${found.allow}.`, { headers: { allow: found.allow } });
  if (found.kind === 'bad_encoding') throw new ApiError('invalid_parameter', `The path parameter \`${found.param}\` is not valid percent-encoding.`, { param: found.param });
  return found.handler(request, found.params, { env, runtime }, url);
}

async function purge(request: Request, { env, runtime }: AdminContext): Promise<Response> {
  const text = await readBodyUpTo(request, MAX_PURGE_BODY_BYTES, () => new ApiError('invalid_parameter', `The body must be at most ${MAX_PURGE_BODY_BYTES} bytes.`, { param: 'body' }));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_parameter', 'The body must be JSON: {"api_key": "..."}, {"brand_id": 2} or {"all": true}.', { param: 'body' });
  }
  const parsed = PurgeBody.safeParse(body);
  if (!parsed.success) throw new ApiError('invalid_parameter', 'Purge by one of: {"api_key": "..."}, {"brand_id": 2}, {"all": true}.', { param: 'body' });
  const store = new CacheStore(env.CACHE, (work) => runtime.waitUntil(work));
  const target = parsed.data;
  const purged =
    'api_key' in target
      ? await store.purge(keyPrefix(await hashApiKey(target.api_key)))
      : 'brand_id' in target
        ? await store.purge(ALL_ENTRIES, (meta) => meta?.brand_id === target.brand_id)
        : await store.purge(ALL_ENTRIES);
  return json({ purged });
}

async function putMap(request: Request, { env, runtime }: AdminContext): Promise<Response> {
  const text = await readBodyUpTo(request, MAX_MAP_BODY_BYTES, () => new ApiError('invalid_parameter', `The map must be at most ${MAX_MAP_BODY_BYTES} bytes.`, { param: 'body' }));
  const input = parseBody(upstreamMapSchemas().UpstreamMapInput, text, 'The body must be JSON: {"operations": {"getVisibility": {"fields": {...}}}} (docs/upstream.md).');
  return json(await storeMap(env, runtime, input));
}

/**
 * Reads one answer of each operation with the key given, through the cache
 * and the key's gate (it spends the key's budget like any read), and answers
 * the map proposed from them (src/discovery). The key is only read
 * from the body, and never logged.
 */
async function discover(request: Request, { env, runtime }: AdminContext): Promise<Response> {
  const text = await readBodyUpTo(request, MAX_DISCOVER_BODY_BYTES, () => new ApiError('invalid_parameter', `The body must be at most ${MAX_DISCOVER_BODY_BYTES} bytes.`, { param: 'body' }));
  const { api_key, apply } = parseBody(DiscoverBody, text, 'The body must be JSON: {"api_key": "...", "apply": false}.');
  // One try per read: a refusal is reported, not waited out.
  const api = apiFor(env, runtime, { clientAddress: clientAddressOf(request), retry: { attempts: 1 }, anyPageParams: true })(api_key);
  const report = await discoverUpstreamMap(clientReader(api), { now: runtime.now });
  const { stopped } = report;
  if (stopped && KEY_REFUSALS.has(stopped.code))
    throw new ApiError('invalid_parameter', `The Read API refuses this key (${stopped.status} ${stopped.code}), so nothing could be read: ${stopped.message}`, { param: 'api_key' });
  if (stopped?.status === 429) throw budgetStop(stopped, report.calls);
  if (stopped) throw new ApiError('upstream_error', `The Read API did not answer discovery's first read (${stopped.status} ${stopped.code}): nothing was read. Try again in a few minutes.`);
  // Reads refused for a reason of discovery's own making leave the map short: it is said, and nothing is stored.
  if (apply && report.incomplete) throw new ApiError('discovery_incomplete', `${report.incomplete.message} Nothing was stored.`);
  if (apply) report.applied = await applyDiscovered(env, runtime, report);
  return json(report);
}

/**
 * Discovery stopped by a 429 (the key's budget, or its quota): nothing is proposed or stored, and the answer says
 * when to go on; the reads made so far are cached, so the next run spends the budget only on the rest.
 */
function budgetStop(stopped: NonNullable<DiscoveryReport['stopped']>, calls: number): ApiError {
  const code = stopped.code === 'quota_exceeded' ? 'quota_exceeded' : 'rate_limited';
  const seconds = stopped.retry_after ?? 60;
  return new ApiError(
    code,
    `Discovery stopped at read ${calls} (${stopped.operation}), which the key's budget refused (${stopped.status} ${stopped.code}): a refused read is no evidence, so nothing was proposed or stored. Go on at ${stopped.resume_at} (in ${seconds} s): the reads made so far are cached and cost nothing then.`,
    { retryAfter: seconds },
  );
}

/** The proposed map stored as the next version; the stored entries of operations discovery could not read are kept. Null when it read none. */
async function applyDiscovered(env: ProxyEnv, runtime: ProxyRuntime, report: DiscoveryReport): Promise<{ version: number } | null> {
  const read = new Set(
    Object.entries(report.operations)
      .filter(([, entry]) => entry.status === 200)
      .map(([id]) => id),
  );
  if (read.size === 0) return null;
  const current = await readStoredMap(env.CACHE);
  const kept = Object.fromEntries(Object.entries(current?.operations ?? {}).filter(([id]) => !read.has(id)));
  const input = upstreamMapSchemas().UpstreamMapInput.parse({ version: current?.version ?? 0, operations: { ...kept, ...report.map.operations } });
  return { version: (await storeMap(env, runtime, input)).version };
}

async function storeMap(env: ProxyEnv, runtime: ProxyRuntime, input: UpstreamMapInput) {
  try {
    return await storeUpstreamMap(env.CACHE, runtime.now, input);
  } catch (error) {
    if (error instanceof MapVersionConflict)
      throw new ApiError(
        'map_version_conflict',
        error.unnamed
          ? `A map is stored (version ${error.current}) and this one names no version: GET it, apply your change, and PUT it with "version": ${error.current}, so that no change is lost.`
          : `The map was replaced meanwhile: it is version ${error.current}. GET it, apply your change, and PUT it with "version": ${error.current}.`,
      );
    throw error;
  }
}

/** A JSON body parsed by `schema`: a 400 naming the field at fault (`param`), or `body` when it is not JSON. */
function parseBody<T extends z.ZodType>(schema: T, text: string, notJson: string): z.output<T> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_parameter', notJson, { param: 'body' });
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // A field the body may not have is named itself, not its object.
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
    const param = path.map(String).join('.') || 'body';
    throw new ApiError('invalid_parameter', `\`${param}\`: ${issue.message}`, { param });
  }
  return parsed.data;
}

/** Compares hashes in constant time, so neither the token nor its length leaks through timing. */
async function requireAdmin(request: Request, token: string): Promise<void> {
  const given = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.get('authorization') ?? '')?.[1];
  const ok = given !== undefined && (await sameSecret(given, token));
  if (!ok) throw new ApiError('invalid_api_key', 'The admin endpoints need `Authorization: Bearer <ADMIN_TOKEN>`.');
}
