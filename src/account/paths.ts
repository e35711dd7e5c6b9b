/**
 * Where the account's pages are: what the guard redirects to, the pages link to and src/app routes by.
 */
export const ACCOUNT_BASE = '/account';
export const ACCOUNT_PATHS = {
  signIn: `${ACCOUNT_BASE}/sign-in`,
  signOut: `${ACCOUNT_BASE}/sign-out`,
  overview: ACCOUNT_BASE,
  subscriptions: `${ACCOUNT_BASE}/subscriptions`,
  links: `${ACCOUNT_BASE}/links`,
  report: `${ACCOUNT_BASE}/report`,
  history: `${ACCOUNT_BASE}/history`,
  exports: `${ACCOUNT_BASE}/exports`,
  views: `${ACCOUNT_BASE}/views`,
} as const;
