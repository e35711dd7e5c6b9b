/**
 * The Worker's environment, parsed once at the entry by one zod schema
 * (DESIGN section 8). A missing secret is a `MissingSecretError` naming it,
 * at the first request, not an `undefined` deep inside a handler.
 *
 * Bindings are checked for presence only; their types come from
 * `src/env.d.ts` (this file is not `src/env.ts`: TypeScript would take `env.d.ts` for its declaration output and ignore it) (`npm run types`, generated from wrangler.toml).
 */
import { z } from 'zod';

/** A secret the deployment must have: `wrangler secret put NAME`, or `.dev.vars` locally. */
const secret = z.string().min(1);
const binding = z.custom<object>((value) => typeof value === 'object' && value !== null, { error: 'binding missing' });
/** A var that is empty when unset (wrangler.toml declares it as ""). */
const optionalText = z
  .string()
  .optional()
  .transform((s) => (s?.trim() ? s.trim() : undefined));
/** Seconds or milliseconds written as digits; empty means the default. */
const optionalCount = optionalText.pipe(z.string().regex(/^\d+$/, { error: 'must be a whole number' }).transform(Number).optional());

export const EnvSchema = z.object({
  DB: binding,
  CACHE: binding,
  UPSTREAM_GATE: binding,
  UNVERIFIED_KEYS: binding,
  PROXY_STATS: binding,
  /** The real service's base URL, ending in /api/v1. Unset: the embedded reference origin. */
  UPSTREAM_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL ending in /api/v1' }).optional()),
  /** Per upstream request, in ms (default 10 000); past it the proxy serves stale or 502. */
  UPSTREAM_TIMEOUT_MS: optionalCount,
  /** Fresh TTL overrides in seconds: windowed reads (table default 300) and fixed-window and list reads (3600). */
  TTL_WINDOWED: optionalCount,
  TTL_FIXED: optionalCount,
  /** Browser origins allowed to call /api/v1, comma-separated (`https://dash.example.com`). None by default. */
  CORS_ORIGINS: optionalText.transform((s) => (s ? s.split(',').map((o) => o.trim()).filter(Boolean) : [])),
  DEMO_DATA: optionalText,
  /** Bearer token of /admin/cache/*. */
  ADMIN_TOKEN: secret,
  /** HMAC key of signed links (digests, reports). */
  SIGNING_SECRET: secret,
  /** AES-GCM key protecting subscribers' API keys at rest. */
  ENCRYPTION_KEY: secret,
  /** Unset: mail goes to the dev outbox in D1. */
  RESEND_API_KEY: optionalText,
  /** The From of digest emails. */
  DIGEST_FROM: optionalText,
  /** Digests (src/digests): the Queue of planned sends, one message per brand+market+key group. */
  DIGEST_QUEUE: binding,
  /** Absolute base URL of links in emails (confirm, unsubscribe, view in browser). Unset: http://localhost:8787. */
  PUBLIC_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
  /** Resend API base URL; only tests and local fakes change it. */
  RESEND_BASE_URL: optionalText.pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional()),
});

const SECRETS = ['ADMIN_TOKEN', 'SIGNING_SECRET', 'ENCRYPTION_KEY'] as const;

/** A required secret is not set: the message says how to set it, never its value. */
export class MissingSecretError extends Error {
  override readonly name = 'MissingSecretError';
  constructor(readonly secretName: string) {
    super(`The secret ${secretName} is not set. Run \`wrangler secret put ${secretName}\` (locally: add it to .dev.vars, see .dev.vars.example).`);
  }
}

export class InvalidEnvError extends Error {
  override readonly name = 'InvalidEnvError';
}

export type Config = z.output<typeof EnvSchema>;
/** The bindings as typed by `wrangler types`, with the parsed vars and secrets. */
export type AppEnv = Omit<Env, keyof Config> & Config & Pick<Env, 'DB' | 'CACHE' | 'UPSTREAM_GATE' | 'UNVERIFIED_KEYS' | 'PROXY_STATS' | 'DIGEST_QUEUE'>;

const parsed = new WeakMap<object, AppEnv>();

/** Parses `env` once per env object; throws `MissingSecretError` / `InvalidEnvError`. */
export function parseEnv(env: Env): AppEnv {
  const hit = parsed.get(env);
  if (hit) return hit;
  const result = EnvSchema.safeParse(env);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const name = String(issue.path[0] ?? '');
    if ((SECRETS as readonly string[]).includes(name)) throw new MissingSecretError(name);
    throw new InvalidEnvError(`Environment variable or binding ${name} ${issue.message}.`);
  }
  const config = { ...env, ...result.data } as unknown as AppEnv;
  parsed.set(env, config);
  return config;
}
