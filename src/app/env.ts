/**
 * The Worker's environment, parsed once at the entry (DESIGN section 8) by
 * one table of readers: the proxy's part (src/proxy/env.ts) and the rest. A
 * missing secret is a `MissingSecretError` naming it, a broken rule an
 * `InvalidEnvError`, at the first request, not an `undefined` deep inside.
 * Only what the proxy needs is required (its bindings, `ADMIN_TOKEN`, and D1
 * while the embedded origin is the upstream); what only the features above it
 * need (`SIGNING_SECRET`, `ENCRYPTION_KEY`, `DIGEST_QUEUE`, D1) is optional,
 * and `featuresOf` (features.ts) says which features this env turns on.
 *
 * `DEV_ROUTES = "on"` is dev (`npm run dev`, the tests): it mounts `/dev/*`.
 * Outside dev, a secret equal to its public dev value (`EXAMPLE_SECRETS`,
 * which `npm run dev` writes into `.dev.vars`) is an `InvalidEnvError`
 * naming it (DESIGN section 8).
 *
 * Bindings are checked for presence only; their types come from
 * `src/env.d.ts` (`npm run types`, generated from wrangler.toml). This file is
 * not an `env.ts` at the root of src/: TypeScript would take `env.d.ts` for its declaration output.
 */
import { EnvVarError, optionalBinding, optionalHttpUrl, optionalList, optionalSecret, optionalText, readVars, refuse, type Reader } from '../lib/env-vars';
import { checkProxyVars, PROXY_VARS } from '../proxy/env';

/**
 * The dev values of the secrets `.dev.vars.example` lists empty, which `npm
 * run dev` writes into `.dev.vars` (scripts/dev.mjs). They are public, so
 * outside dev they are refused. A test holds this list to the file's names
 * (test/env-examples.unit.test.ts).
 */
export const EXAMPLE_SECRETS = {
  ADMIN_TOKEN: 'dev_admin_token_change_me',
  SIGNING_SECRET: 'dev_signing_secret_change_me',
  ENCRYPTION_KEY: 'ZGV2X2VuY3J5cHRpb25fa2V5X2NoYW5nZV9tZV8zMmI=',
} as const;

const HOST_NAME = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$|^\[[0-9A-Fa-f:.]+\]$/;

/** The Worker's vars and bindings: the proxy's, then the features'. Each is read by its reader, in this order. */
export const APP_VARS = {
  ...PROXY_VARS,
  DEMO_DATA: optionalText,
  /**
   * "on": dev. Mounts the `/dev/*` routes (the outbox of unsent mail, the planner at a chosen time), which have
   * no authentication, and allows the example secrets. `npm run dev` and the tests set it; empty in wrangler.toml.
   */
  DEV_ROUTES: ((value) => {
    const text = optionalText(value);
    return text === undefined || text === 'on' ? text : refuse('must be "on" (dev only: /dev/* routes without authentication) or empty');
  }) as Reader<'on' | undefined>,
  /** HMAC key of signed links (digests, reports). Unset: digests and reports are off. */
  SIGNING_SECRET: optionalSecret,
  /** AES-GCM key protecting subscribers' API keys at rest. Unset: digests and reports are off. */
  ENCRYPTION_KEY: optionalSecret,
  /** Unset: mail goes to the dev outbox in D1. */
  RESEND_API_KEY: optionalText,
  /** The From of digest emails. */
  DIGEST_FROM: optionalText,
  /** Digests: the Queue of planned sends, one message per brand+market+key group. Unbound: digests are off. */
  DIGEST_QUEUE: optionalBinding,
  /** Change alerts: the Queue of deliveries. Unbound: alerts are off. */
  ALERT_QUEUE: optionalBinding,
  /** OAuth 2.1 for /mcp (src/mcp/oauth.ts): its clients, grants and tokens. Unbound: /mcp takes only a pasted API key. */
  OAUTH_KV: optionalBinding,
  /** OAuth's writes per client address (registrations, consent pages): the rate-limiting binding. Unbound: OAuth is off. */
  OAUTH_WRITES: optionalBinding,
  /** Static assets (wrangler.toml `[assets]`): the MCP App's view (src/mcp/weekly-view.ts). Unbound: its `resources/read` answers an error; the tools still answer as text. */
  ASSETS: optionalBinding,
  /** Absolute base URL of links in emails (confirm, unsubscribe, view in browser). Unset: http://localhost:8787. */
  PUBLIC_URL: optionalHttpUrl('must be an http(s) URL'),
  /** Resend API base URL; only tests and local fakes change it. */
  RESEND_BASE_URL: optionalHttpUrl('must be an http(s) URL'),
  /** Host names `/mcp` answers for, in `Host` and `Origin` (DNS rebinding), comma-separated; localhost too in dev. */
  MCP_ALLOWED_HOSTS: ((value) =>
    optionalList(value).map((host) => (HOST_NAME.test(host) ? host.toLowerCase() : refuse('must be host names without scheme or port, comma-separated, e.g. "edge.example.com"')))) as Reader<string[]>,
};

type AppVars = { [K in keyof typeof APP_VARS]: ReturnType<(typeof APP_VARS)[K]> };

/** The rules across vars, once each var reads: the proxy's, then the mail's. */
function checkAppVars(env: AppVars): void {
  checkProxyVars(env);
  // With Resend, mail goes to real inboxes: it needs a sender on a verified domain, and links that
  // work outside this machine, over https. `http://localhost:8787` is only the dev outbox's default.
  if (!env.RESEND_API_KEY) return;
  if (!env.DIGEST_FROM) throw new EnvVarError('DIGEST_FROM', 'must be set (a sender on a domain verified in Resend) when RESEND_API_KEY is set');
  if (!env.PUBLIC_URL || new URL(env.PUBLIC_URL).protocol !== 'https:') {
    throw new EnvVarError(
      'PUBLIC_URL',
      `must be the Worker's public https address (e.g. https://edge.example.com) when RESEND_API_KEY is set: every link in the emails is built from it (now ${env.PUBLIC_URL ? `"${env.PUBLIC_URL}"` : 'unset'})`,
    );
  }
}

/** The secrets every deployment needs (the admin routes); the others only turn features on. */
const SECRETS = ['ADMIN_TOKEN'] as const;

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

type Bindings = Pick<Env, 'CACHE' | 'UPSTREAM_GATE' | 'UNVERIFIED_KEYS' | 'PROXY_STATS'> & Partial<Pick<Env, 'DB' | 'DIGEST_QUEUE' | 'ALERT_QUEUE' | 'OAUTH_KV' | 'OAUTH_WRITES' | 'ASSETS'>>;
/** The bindings as typed by `wrangler types` (`DB` and the Queues only when bound), with the parsed vars and secrets. */
export type AppEnv = Omit<AppVars, keyof Bindings> & Bindings;

const parsed = new WeakMap<object, AppEnv>();

/** Parses `env` once per env object; throws `MissingSecretError` / `InvalidEnvError`. */
export function parseEnv(env: Env): AppEnv {
  const hit = parsed.get(env);
  if (hit) return hit;
  let vars: AppVars;
  try {
    vars = readVars(env, APP_VARS);
    checkAppVars(vars);
  } catch (error) {
    if (!(error instanceof EnvVarError)) throw error;
    if ((SECRETS as readonly string[]).includes(error.varName)) throw new MissingSecretError(error.varName);
    throw new InvalidEnvError(`Environment variable or binding ${error.message}.`);
  }
  const config = { ...env, ...vars } as unknown as AppEnv;
  if (config.DEV_ROUTES !== 'on') {
    for (const [name, example] of Object.entries(EXAMPLE_SECRETS)) {
      const value = config[name as keyof typeof EXAMPLE_SECRETS];
      // Named, never shown: the message says which secret, not its value.
      if (value !== undefined && value.trim() === example) {
        throw new InvalidEnvError(
          `The secret ${name} is the public dev value that npm run dev writes into .dev.vars, which anyone can read. Set your own: \`openssl rand -base64 32 | npx wrangler secret put ${name}\`, or run npm run deploy, which generates it (dev values are allowed only with DEV_ROUTES = "on", in dev).`,
        );
      }
    }
  }
  parsed.set(env, config);
  return config;
}
