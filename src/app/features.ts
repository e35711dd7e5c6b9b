/**
 * Which features this deployment runs, derived from the parsed env alone
 * (docs/deploy.md, "What each feature needs"). The proxy and its admin are
 * always on: the schema (env.ts) requires what they need. The others are on
 * when their bindings and secrets are there; when one is off, its routes
 * answer 404 naming what to configure and its events only log (worker.ts).
 *
 * The type guards narrow `AppEnv` to the env a feature runs on, so a feature's
 * code (`buildServices`) is never reached with what it needs missing.
 */
import type { AppEnv } from './env';

/** The embedded origin's env: D1 bound. */
export type OriginEnv = AppEnv & { DB: D1Database };
/** The reports' env (and the part of the digests' that is not the Queue): D1 and both secrets. */
export type ReportsEnv = AppEnv & { DB: D1Database; SIGNING_SECRET: string; ENCRYPTION_KEY: string };
/** The digests' env: the reports' and the Queue of planned sends. */
export type DigestsEnv = ReportsEnv & { DIGEST_QUEUE: Queue };
/** The alerts' env: the reports' and the Queue of deliveries. */
export type AlertsEnv = ReportsEnv & { ALERT_QUEUE: Queue };

/** The settings the optional features read; only names are ever reported, never values. */
type Need = 'DB' | 'SIGNING_SECRET' | 'ENCRYPTION_KEY' | 'DIGEST_QUEUE' | 'ALERT_QUEUE';
const KIND: Record<Need, string> = { DB: 'the D1 binding', SIGNING_SECRET: 'the secret', ENCRYPTION_KEY: 'the secret', DIGEST_QUEUE: 'the Queue binding', ALERT_QUEUE: 'the Queue binding' };
const REPORTS_NEED: readonly Need[] = ['DB', 'SIGNING_SECRET', 'ENCRYPTION_KEY'];
const DIGESTS_NEED: readonly Need[] = [...REPORTS_NEED, 'DIGEST_QUEUE'];
const ALERTS_NEED: readonly Need[] = [...REPORTS_NEED, 'ALERT_QUEUE'];

const missing = (env: AppEnv, needs: readonly Need[]): Need[] => needs.filter((name) => !env[name]);

export const isOriginEnv = (env: AppEnv): env is OriginEnv => !env.UPSTREAM_URL && Boolean(env.DB);
export const isReportsEnv = (env: AppEnv): env is ReportsEnv => missing(env, REPORTS_NEED).length === 0;
export const isDigestsEnv = (env: AppEnv): env is DigestsEnv => missing(env, DIGESTS_NEED).length === 0;
export const isAlertsEnv = (env: AppEnv): env is AlertsEnv => missing(env, ALERTS_NEED).length === 0;

/** The features that can be off: the embedded origin, `/reports/*` and `/r/*`, the exports (`/exports/*`, `/x/*`, the history cron), the digests (`/digests/*`, the cron, the queues, the mailto: unsubscribe) and the alerts (their subscriptions, evaluation and queues). */
export type OptionalFeature = 'origin' | 'reports' | 'exports' | 'digests' | 'alerts';

export interface Features {
  /** `/api/v1` and `/admin/cache/*`: always on. */
  proxy: true;
  origin: boolean;
  reports: boolean;
  /** The CSV export links and the kept history: the reports' needs (D1 and both secrets). */
  exports: boolean;
  digests: boolean;
  /** Change alerts: evaluated by the cron, delivered from their Queue (`ALERT_QUEUE`). */
  alerts: boolean;
  /**
   * Where the reports' and digests' mail goes; `off` when neither feature is on. Without `RESEND_API_KEY` it is
   * recorded in D1's outbox table: readable at `/dev/outbox` in dev (`dev outbox`), by no route otherwise (`unsent`).
   */
  mail: 'resend' | 'dev outbox' | 'unsent' | 'off';
  /** `/dev/*` is mounted: `DEV_ROUTES = "on"`, dev only. */
  devRoutes: boolean;
  /** `/mcp` takes OAuth (`OAUTH_KV` and `OAUTH_WRITES` bound, `SIGNING_SECRET` set) beside a pasted key; without them, only the key (`/oauth/*` answers 404). */
  mcpOAuth: boolean;
  /** For each feature that is off, what turns it on, in words naming settings (never their values). */
  off: Partial<Record<OptionalFeature, string>>;
}

/** "set DB (the D1 binding), SIGNING_SECRET (the secret)". */
const toConfigure = (names: Need[]) => `set ${names.map((name) => `${name} (${KIND[name]})`).join(', ')}`;

const derived = new WeakMap<AppEnv, Features>();

/** The features of a parsed env, derived once per env object (parseEnv returns one object per isolate's env). */
export function featuresOf(env: AppEnv): Features {
  const hit = derived.get(env);
  if (hit) return hit;
  const reports = isReportsEnv(env);
  const digests = isDigestsEnv(env);
  const alerts = isAlertsEnv(env);
  const off: Features['off'] = {};
  if (!isOriginEnv(env)) off.origin = 'UPSTREAM_URL is set: the proxy reads that service (unset it, with DB bound, to serve the embedded origin)';
  if (!reports) off.reports = toConfigure(missing(env, REPORTS_NEED));
  if (!reports) off.exports = toConfigure(missing(env, REPORTS_NEED));
  if (!digests) off.digests = toConfigure(missing(env, DIGESTS_NEED));
  if (!alerts) off.alerts = toConfigure(missing(env, ALERTS_NEED));
  const features: Features = {
    proxy: true,
    origin: isOriginEnv(env),
    reports,
    exports: reports,
    digests,
    alerts,
    mail: !reports && !digests ? 'off' : env.RESEND_API_KEY ? 'resend' : env.DEV_ROUTES === 'on' ? 'dev outbox' : 'unsent',
    devRoutes: env.DEV_ROUTES === 'on',
    mcpOAuth: Boolean(env.OAUTH_KV && env.OAUTH_WRITES && env.SIGNING_SECRET),
    off,
  };
  derived.set(env, features);
  return features;
}

/** The start-up log line: which features are on, and for each one off what it needs. Names only, never a value. */
export function featuresLine(features: Features): Record<string, unknown> {
  const on = ['proxy', 'admin', ...(['origin', 'reports', 'exports', 'digests', 'alerts'] as const).filter((name) => features[name])];
  return {
    msg: 'features',
    on,
    off: features.off,
    mail: MAIL_LINE[features.mail],
    mcp: features.mcpOAuth ? MCP_OAUTH_ON : MCP_OAUTH_OFF,
    ...(features.devRoutes ? { dev_routes: 'on: /dev/outbox, /dev/digests/plan and /dev/alerts/run answer anyone, without authentication (DEV_ROUTES = "on": dev only, never in a deployment)' } : {}),
  };
}

// /mcp itself is always on; what varies is how an assistant authenticates.
const MCP_OAUTH_ON = 'OAuth (OAUTH_KV bound: assistants connect by URL) or the API key in Authorization';
const MCP_OAUTH_OFF =
  'the API key in Authorization only: OAuth is off, /oauth/* and its metadata answer 404 (bind OAUTH_KV, the KV namespace, and OAUTH_WRITES, the rate-limiting binding, and set SIGNING_SECRET, for assistants that connect by URL: docs/mcp.md)';

const SEND_REAL_MAIL = 'set RESEND_API_KEY, DIGEST_FROM and an https PUBLIC_URL to send real mail';
const MAIL_LINE: Record<Features['mail'], string> = {
  resend: 'Resend',
  'dev outbox': `the dev outbox in D1, readable at /dev/outbox (${SEND_REAL_MAIL})`,
  unsent: `NOT SENT: RESEND_API_KEY is unset, so every email is only recorded in D1 (table digest_outbox), where no route shows it (${SEND_REAL_MAIL})`,
  off: 'off',
};

/** The answer's message for a route of a feature that is off. */
export function offMessage(feature: 'reports' | 'exports' | 'digests' | 'alerts', features: Features): string {
  const name = { reports: 'Reports are', exports: 'Exports are', digests: 'Digests are', alerts: 'Alerts are' }[feature];
  return `${name} not configured on this deployment: ${features.off[feature]} (docs/deploy.md).`;
}
