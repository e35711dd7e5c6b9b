/**
 * What the proxy reads of the Worker's environment: its bindings and vars,
 * each with its reader (the Worker's own, src/app/env.ts, add to them). The
 * upstream gate, a Durable Object, reads its env with them too.
 */
import { binding, EnvVarError, optionalBinding, optionalCount, optionalHttpUrl, optionalList, readVars, refuse, type Reader, secret } from '../lib/env-vars';

/** What UPSTREAM_MAX_BYTES may say at most: KV takes 25 MiB a value, but a few reads of that size at once would not fit in 128 MB. */
export const UPSTREAM_MAX_BYTES_CEILING = 16 * 1024 * 1024;

const upstreamMaxBytes: Reader<number | undefined> = (value) => {
  const bytes = optionalCount(value);
  if (bytes === undefined) return undefined;
  if (bytes < 1024) return refuse('must be at least 1024');
  if (bytes > UPSTREAM_MAX_BYTES_CEILING) return refuse(`must be at most ${UPSTREAM_MAX_BYTES_CEILING} (16 MiB): a few larger reads at once would not fit in an isolate's 128 MB`);
  return bytes;
};

/** The proxy's vars and bindings, each with its reader, in the order they are checked (the Worker's own, src/app/env.ts, add to them). */
export const PROXY_VARS = {
  /** D1: the embedded origin reads it, so it is required only while `UPSTREAM_URL` is unset (the features above the proxy need it too: src/app/features.ts). */
  DB: optionalBinding,
  CACHE: binding,
  UPSTREAM_GATE: binding,
  UNVERIFIED_KEYS: binding,
  PROXY_STATS: binding,
  /** The real service's base URL, ending in /api/v1. Unset: the embedded reference origin. */
  UPSTREAM_URL: optionalHttpUrl('must be an http(s) URL ending in /api/v1'),
  /** Per upstream request, in ms (default 10 000); past it the proxy serves stale or 502. */
  UPSTREAM_TIMEOUT_MS: optionalCount,
  /** The largest upstream answer read, in bytes (default 4 MiB); a larger one is a 502 (or stale), never stored. */
  UPSTREAM_MAX_BYTES: upstreamMaxBytes,
  /** With a stored copy, how long to wait for the upstream before answering STALE, in ms (default 1 500). */
  UPSTREAM_SOFT_DEADLINE_MS: optionalCount,
  /** Fresh TTL overrides in seconds: windowed reads (table default 300) and fixed-window and list reads (3600). */
  TTL_WINDOWED: optionalCount,
  TTL_FIXED: optionalCount,
  /** Browser origins allowed to call /api/v1, comma-separated (`https://dash.example.com`). None by default. */
  CORS_ORIGINS: optionalList,
  /** Bearer token of /admin/cache/*. */
  ADMIN_TOKEN: secret,
} satisfies Record<string, Reader<unknown>>;

type ProxyVars = { [K in keyof typeof PROXY_VARS]: ReturnType<(typeof PROXY_VARS)[K]> };

/** The proxy's rule across vars, checked once each var reads: an `EnvVarError` naming the var at fault. */
export function checkProxyVars(vars: Pick<ProxyVars, 'UPSTREAM_URL' | 'DB'>): void {
  // Without UPSTREAM_URL the upstream is the embedded origin, in-process, over D1.
  if (!vars.UPSTREAM_URL && !vars.DB) {
    throw new EnvVarError('DB', 'binding missing: with UPSTREAM_URL unset the upstream is the embedded origin, which reads D1 (bind DB, or set UPSTREAM_URL to the real service)');
  }
}

type Bindings = Pick<Env, 'CACHE' | 'UPSTREAM_GATE' | 'UNVERIFIED_KEYS' | 'PROXY_STATS'> & Partial<Pick<Env, 'DB' | 'ASSETS'>>;
/** The proxy's bindings as typed by `wrangler types` (`DB` only when bound), with its vars read. */
export type ProxyEnv = Omit<ProxyVars, keyof Bindings> & Bindings;

const parsed = new WeakMap<object, ProxyEnv>();

/** The gate's env: parsed once per env object. The Worker's entry has checked the same schema already. */
export function proxyEnvOf(env: Env): ProxyEnv {
  let hit = parsed.get(env);
  if (!hit) {
    const vars = readVars(env, PROXY_VARS);
    checkProxyVars(vars);
    hit = { ...env, ...vars } as unknown as ProxyEnv;
    parsed.set(env, hit);
  }
  return hit;
}
