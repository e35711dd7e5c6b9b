/**
 * The account's own pages, in its shell (shell.ts): the front door (`GET /` in a browser), a browser's 404, the
 * sign-in page, and the overview with "Connect an assistant". The subscriptions screen is subscriptions-page.ts,
 * the share and CSV links' links-page.ts. Every value is escaped by the `html` template; the key is never written
 * into a page.
 */
import { VIEW_KINDS, VIEWS } from '../views';
import { EMPTY, html, type Markup } from '../lib/html';
import { formatPercent, formatTrend } from '../weekly-report/words';
import { sparklineSvg } from '../weekly-report/chart';
import type { Brand } from './guard';
import type { OverviewWeek } from './overview';
import { ACCOUNT_PATHS } from './paths';
import { accountPage, copyButton, inactiveNotice, withCode } from './shell';

/** A browser's 404 (where a client that asks for JSON gets the API's): a title, the language, and the ways back. */
export function notFoundPage(signedIn: boolean): Response {
  const body = html`<h1>Nothing here</h1>
<p>This address is not a page of this site: the link may be old or cut short.</p>
<p>${signedIn ? html`<a class="cta" href="${ACCOUNT_PATHS.overview}">Go to your account</a>` : html`<a class="cta" href="/">Go to the front page</a>`}</p>`;
  return accountPage(404, { title: 'Nothing here', body, width: 'narrow' });
}

/** What a deployment tells a person at its front door, and developers where the API is. */
export function frontDoor(origin: string, signedIn: boolean): Response {
  const body = html`<h1>Brand AI-Visibility</h1>
<p class="door">How often AI assistants (ChatGPT, Perplexity, Gemini and others) mention your brand, and what changed this week: a weekly report, digests by email, change alerts, share links and CSV exports.</p>
<p>${signedIn ? html`<a class="cta" href="${ACCOUNT_PATHS.overview}">Go to your account</a>` : html`<a class="cta" href="${ACCOUNT_PATHS.signIn}">Sign in with your API key</a>`}</p>
<p class="small">Signing in takes the Read API key of your account. It is checked with the API and kept encrypted on this server for a working day; it is never put in a page or a link.</p>
<h2>For developers</h2>
<dl class="facts">
<dt>Read API</dt><dd><code>${origin}/api/v1</code> (OpenAPI: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>)</dd>
<dt>Product routes</dt><dd>digests, reports, exports: <a href="/openapi.json">/openapi.json</a></dd>
<dt>MCP server</dt><dd><code>${origin}/mcp</code> (for AI assistants)</dd>
</dl>`;
  return accountPage(200, { title: 'Welcome', body, width: 'narrow' });
}

/** Why the sign-in page is shown again, said after the redirect that brought the person there. */
export const SIGN_IN_NOTES = {
  'signed-out': 'You are signed out.',
  ended: 'Your session has ended (a working day is its limit). Sign in again.',
  revoked: 'Your session has ended: the API no longer accepts its key (revoked or unknown). Sign in with a current key.',
} as const;
export type SignInNote = keyof typeof SIGN_IN_NOTES;

export function signInPage(status: number, o: { error?: string; note?: SignInNote }, extraHeaders: Record<string, string> = {}): Response {
  const invalid = o.error ? html` aria-invalid="true" aria-describedby="key-error key-hint" autofocus` : html` aria-describedby="key-hint"`;
  const body = html`<h1>Sign in</h1>
${o.note ? html`<p class="notice" role="status">${SIGN_IN_NOTES[o.note]}</p>` : null}
<p>Sign in with your Read API key to manage your digests and alerts, share links and CSV links, and to connect an assistant.</p>
<form method="post" action="${ACCOUNT_PATHS.signIn}">
<div class="field">
<label class="block" for="api_key">Your Read API key</label>
<input type="password" id="api_key" name="api_key" required autocomplete="off" spellcheck="false" autocapitalize="off"${invalid}>
${o.error ? html`<p class="error" id="key-error" role="alert">${withCode(o.error)}</p>` : null}
<p class="hint" id="key-hint">The key is checked with the API, then kept encrypted on this server for a working day (8 hours) or until you sign out.</p>
</div>
<div class="actions"><button type="submit">Sign in</button></div>
</form>`;
  return accountPage(status, { title: 'Sign in', body, width: 'narrow' }, extraHeaders);
}

/** The overview: the key's brands, where each screen is, and how to connect an assistant. */
export function overviewPage(o: { csrf: string; brands: readonly Brand[]; weeks: readonly OverviewWeek[]; origin: string; expiresAt: Date; inactive?: string }): Response {
  const brands = o.inactive
    ? inactiveNotice(o.inactive, 'Until the plan is active again, you can still see and remove your subscriptions and see and revoke your share links and CSV links.')
    : o.weeks.length
      ? html`<ul class="weeks" data-testid="weeks">${o.weeks.map(weekCard)}</ul>`
      : html`<p>The key reads no brand yet.</p>`;
  const body = html`<h1>Your account</h1>
<p>Signed in until ${o.expiresAt.toISOString().slice(11, 16)} UTC.${o.inactive ? null : ` The key reads ${o.brands.length === 1 ? 'one brand' : `${o.brands.length} brands`}, each market's last 7 days below:`}</p>
${brands}
<h2>What you can do here</h2>
<ul>
<li><a href="${ACCOUNT_PATHS.subscriptions}">Digests and alerts</a>: who gets the weekly digest and the change alerts, by email, Slack or webhook; add, confirm again, remove; send this week's digest now.</li>
<li><a href="${ACCOUNT_PATHS.links}">Share links</a>: the weekly report for someone without a key, until the link expires or you revoke it.</li>
<li><a href="${ACCOUNT_PATHS.exports}">CSV links</a>: any table of the API as a CSV address, for a spreadsheet's <code>IMPORTDATA</code>.</li>
</ul>
${assistantSection(o.origin)}`;
  return accountPage(200, { title: 'Your account', body, current: 'overview', csrf: o.csrf });
}

/** One brand and market's week on the overview: the score against the noise, won and lost, 12 weeks, the first action, and its pages. */
function weekCard(w: OverviewWeek): Markup {
  const scope = new URLSearchParams({ brand_id: String(w.brandId), market: w.market }).toString();
  const where = `${w.brand} ${w.market.toUpperCase()}`;
  const views = VIEW_KINDS.map((kind) => html` · <a href="${ACCOUNT_PATHS.views}/${kind}?${scope}">${VIEWS[kind].heading}<span class="sr"> of ${where}</span></a>`);
  const links = html`<p class="small"><a href="${ACCOUNT_PATHS.report}?${scope}">The weekly report<span class="sr"> for ${where}</span></a> · <a href="${ACCOUNT_PATHS.history}?${scope}">the kept history<span class="sr"> of ${where}</span></a>${views}</p>`;
  const head = html`<h3>${w.brand} <span class="small">${w.market.toUpperCase()}</span></h3>`;
  if (!w.week) return html`<li data-scope="${scope}">${head}<p class="small">Not read just now: ${w.problem ?? 'the Read API did not answer'}</p>${links}</li>`;
  const { week } = w;
  const trend = week.trend === 'up' ? 'up' : week.trend === 'down' ? 'down' : 'flat';
  return html`<li data-scope="${scope}" data-score="${week.score === null ? '' : week.score.toFixed(1)}">${head}
<p class="figure"><strong>${formatPercent(week.score)}</strong> <span class="${trend}">${formatTrend(week.change, week.trend)}</span></p>
<p class="small">${week.period}: <span class="down">${week.lost} lost</span> · <span class="up">${week.won} won</span></p>
${sparklineSvg(week.history, `${where}, score by week, last ${week.history.length} weeks`)}
${week.action ? html`<p class="action"><span class="small">This week:</span> ${week.action}</p>` : EMPTY}${links}</li>`;
}

/** The MCP address and the steps for each client docs/mcp.md covers. */
function assistantSection(origin: string): Markup {
  const url = `${origin}/mcp`;
  const block = (id: string, text: string, what: string) => html`<pre id="${id}">${text}</pre>${copyButton(id, what)}`;
  return html`<h2 id="assistant">Connect an assistant</h2>
<p>Assistants read your data through the MCP server at this address (they ask for your key on a consent page of this site, then never see it):</p>
<p><code id="mcp-url">${url}</code>${copyButton('mcp-url', 'the MCP address')}</p>
<h3>Claude.ai and Claude Desktop</h3>
<p>Settings, <strong>Connectors</strong>, <strong>Add custom connector</strong>: a name and the address above, <strong>Add</strong>, then <strong>Connect</strong>. The consent page opens: paste your key, <strong>Continue</strong>, <strong>Approve</strong>.</p>
<h3>ChatGPT</h3>
<p>Settings, <strong>Apps &amp; Connectors</strong>, <strong>Advanced settings</strong>, turn on <strong>Developer mode</strong>; then <strong>Create</strong>: a name, the address above, authentication <strong>OAuth</strong>, <strong>Create</strong>.</p>
<h3>Cursor</h3>
<p>In <code>~/.cursor/mcp.json</code>, then Settings, MCP, <strong>Needs login</strong>:</p>
${block('cfg-cursor', JSON.stringify({ mcpServers: { 'brand-visibility': { url } } }), 'the Cursor configuration')}
<h3>VS Code</h3>
<p>In <code>.vscode/mcp.json</code>, then <strong>Start</strong> the server:</p>
${block('cfg-vscode', JSON.stringify({ servers: { 'brand-visibility': { type: 'http', url } } }), 'the VS Code configuration')}
<h3>Claude Code</h3>
${block('cfg-claude-code', `claude mcp add --transport http brand-visibility ${url}`, 'the Claude Code command')}
<p>Then <code>/mcp</code> in a session, <strong>Authenticate</strong>.</p>
<h3>Other clients (mcp-remote)</h3>
${block('cfg-remote', `npx -y mcp-remote ${url}`, 'the mcp-remote command')}`;
}
