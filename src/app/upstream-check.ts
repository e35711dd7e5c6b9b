/**
 * `POST /admin/upstream/check` (admin token; body `{"api_key": "...",
 * "brand_id"?: 2, "market"?: "us"}`: a key never goes in a URL): the
 * compatibility check of src/weekly-report/compat.ts, per feature, as JSON,
 * or as a page when the request's `Accept` prefers HTML.
 *
 * Here, in the wiring, because it needs both the proxy (`apiFor`, the
 * admin's token) and the weekly report's parts table, and the proxy may not
 * import the layers above it: `handleAdmin` serves it with its own routes.
 * The reads go through `apiFor` with the key from the body, so they spend
 * its budget (cached reads are free) and `calls` says how many went
 * upstream. The key is neither logged nor shown.
 */
import * as z from 'zod';
import { BrandIdField, MarketField } from '../contract/scope-body';
import { toApiError } from '../client';
import { API_KEY_CHARACTERS, apiKeyProblem } from '../contract/access';
import type { Violation } from '../contract/plausibility';
import { ApiError } from '../contract/errors';
import { parseJsonObject, readJsonBody } from '../contract/json-body';
import { html, htmlDocument, joinMarkup, type Markup, pageHeaders, trusted } from '../lib/html';
import { json, prefersHtml } from '../lib/http';
import type { Route } from '../lib/router';
import { type AdminContext, apiFor, callsLeft, clientAddressOf, UPSTREAM_ADMIN_BASE } from '../proxy';
import { CheckInterrupted, checkCompatibility, type CompatibilityResult, type FeatureStatus, formatStamp, type OperationStatus } from '../weekly-report';

export const UPSTREAM_CHECK_PATH = `${UPSTREAM_ADMIN_BASE}/check`;
/** A key and a brand and market: a few hundred bytes at most. */
export const MAX_CHECK_BODY_BYTES = 1024;

export const CheckBody = z.strictObject({
  api_key: z
    .string({ error: '`api_key` is required: the API key to read the service with.' })
    .min(1)
    .max(256)
    .refine((key) => apiKeyProblem(key) === null, { error: API_KEY_CHARACTERS }),
  brand_id: BrandIdField,
  market: MarketField,
});

export interface CheckAnswer extends CompatibilityResult {
  /** Upstream calls the check spent of the key's budget (its gate's count, before and after). */
  calls: number;
  checked_at: string;
}

async function check(request: Request, { env, runtime }: AdminContext): Promise<Response> {
  const body = parseJsonObject(CheckBody, await readJsonBody(request, MAX_CHECK_BODY_BYTES));
  // One try per read: a refusal for the key's budget is reported with when to go on, not waited out in the request.
  const client = apiFor(env, runtime, { clientAddress: clientAddressOf(request), retry: { attempts: 1 } })(body.api_key);
  const before = await callsLeft(env.UPSTREAM_GATE, body.api_key);
  const asked = { brand_id: body.brand_id, market: body.market === undefined ? undefined : String(body.market) };
  let result: CompatibilityResult;
  try {
    result = await checkCompatibility(client, asked, { today: runtime.now().toISOString().slice(0, 10) });
  } catch (error) {
    if (!(error instanceof CheckInterrupted)) throw error;
    const { failure } = error;
    // The admin's own token is the route's 401: a key the API refuses is a bad field of the body.
    if (failure.status === 401 || failure.status === 403)
      throw new ApiError('invalid_parameter', `The Read API refuses this key (${failure.code}), so nothing could be checked.`, { param: 'api_key' });
    if (failure.status === 429) {
      // The key's budget (or quota), not the service's bodies: no verdict, and when to go on.
      const seconds = failure.retryAfter ?? 60;
      const at = new Date(runtime.now().getTime() + seconds * 1000).toISOString();
      throw new ApiError(
        failure.code === 'quota_exceeded' ? 'quota_exceeded' : 'rate_limited',
        `The key's budget refused a read of the check (${failure.operation}: ${failure.code}), so it gives no verdict. Check again at ${at} (in ${seconds} s): the reads made so far are cached and cost nothing then.`,
        {
          retryAfter: seconds,
        },
      );
    }
    throw toApiError(failure);
  }
  const answer: CheckAnswer = { ...result, calls: before - (await callsLeft(env.UPSTREAM_GATE, body.api_key)), checked_at: runtime.now().toISOString() };
  if (prefersHtml(request.headers.get('accept'))) return new Response(checkPage(answer, asked).html, { headers: pageHeaders() });
  return json(answer);
}

export const upstreamCheckRoutes: Route<AdminContext>[] = [{ path: UPSTREAM_CHECK_PATH, answers: 'json', methods: { POST: (request, _, admin) => check(request, admin) } }];

// ---------------------------------------------------------------- the page

const STATUS_WORDS: Record<FeatureStatus, string> = { works: 'Works', works_without: 'Works without a section', cannot_run: 'Cannot run', implausible: 'Implausible figures' };
const OPERATION_WORDS: Record<OperationStatus, string> = {
  readable: 'read in full',
  readable_without: 'read without some fields',
  unreadable: 'unreadable',
  not_provided: 'not provided',
  refused: 'not in this key’s plan or integrations',
  not_checked: 'not checked',
};

const STYLE = `
.status{display:inline-block;font-size:14px;font-weight:600;padding:2px 10px;border-radius:999px;border:1px solid currentColor;white-space:nowrap}
.works{color:var(--good)}.works_without{color:var(--ink)}.cannot_run,.implausible{color:var(--bad)}
ul.features{list-style:none;padding:0;margin:0}
ul.features>li{border-left:4px solid var(--rule);padding:6px 0 6px 12px;margin:0 0 16px}
ul.features>li.works{border-left-color:var(--good)}
ul.features>li.cannot_run,ul.features>li.implausible{border-left-color:var(--bad)}
ul.features h3{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin:0 0 6px;color:var(--ink)}
ul.missing{margin:4px 0 0;padding-left:20px}
ul.missing li{margin:0 0 6px}
.where{display:block;font-size:14px;color:var(--muted);overflow-wrap:anywhere}
td,td code{overflow-wrap:anywhere}
`;

/** One thing a feature lacks, in words: the line it says, or what stops it, then where. */
function missingItem(m: CompatibilityResult['features'][number]['missing'][number]): Markup {
  const what = m.required ? `Needs ${m.words}.` : (m.line ?? `Runs without ${m.words}.`);
  const where =
    m.field === null
      ? `answers ${m.answer ?? 'with no body it can read'}`
      : m.unmapped !== undefined
        ? html`<code>${m.field}</code> is <code>${m.unmapped}</code>, none of the contract's values: the map's <code>values</code> can say which of ours it is`
        : html`<code>${m.field}</code> ${m.required ? 'missing or unreadable' : 'not provided'}`;
  return html`<li>${what}<span class="where">${m.operation}: ${where}</span></li>`;
}

/** A rule the feature's reads break: its words, then the rule and the fields. */
function violationItem(v: Violation): Markup {
  const fields = joinMarkup(
    v.fields.map((f) => html`<code>${f}</code>`),
    ', ',
  );
  return html`<li data-rule="${v.rule}">${v.message}<span class="where">${v.operation ?? 'what it counts'}: ${fields} break <code>${v.rule}</code></span></li>`;
}

/** The check as a page, in the look of the report page. */
function checkPage(answer: CheckAnswer, asked: { brand_id?: number | undefined; market?: string | undefined }): Markup {
  const scope = [asked.brand_id !== undefined ? `brand ${asked.brand_id}` : 'the key’s brand', asked.market !== undefined ? `market ${asked.market.toUpperCase()}` : 'its primary market'].join(', ');
  const features = answer.features.map(
    (f) =>
      html`<li class="${f.status}" data-feature="${f.feature}" data-status="${f.status}"><h3>${f.label} <span class="status ${f.status}">${STATUS_WORDS[f.status]}</span></h3>${f.missing.length + f.violations.length > 0 ? html`<ul class="missing">${f.violations.map(violationItem)}${f.missing.map(missingItem)}</ul>` : null}</li>`,
  );
  const operations = answer.operations.map((op) => {
    const fields =
      op.fields.length > 0
        ? html`: ${joinMarkup(
            op.fields.map((f) => html`<code>${f}</code>`),
            ', ',
          )}`
        : null;
    const code = op.code ? html` <span class="small">(${op.code})</span>` : null;
    const note = op.note ? html` <span class="small">(${op.note})</span>` : null;
    return html`<tr data-operation="${op.operation}" data-status="${op.status}"><th scope="row"><code>${op.operation}</code></th><td>${OPERATION_WORDS[op.status]}${fields}${code}${note}</td></tr>`;
  });
  const body = html`<h1>Does this Read API work with every feature?</h1>
<p class="meta">Checked ${formatStamp(answer.checked_at)}, with the API key you sent, for ${scope}: ${answer.reads} reads through the cache, ${answer.calls} of them upstream.</p>
<p class="small">A feature with implausible figures reads answers that break a rule the spec implies (the score is the share of answered runs naming the brand, shares lie within 0 to 100, …): the map most likely reads a field from the wrong place or in the wrong unit. Each feature needs only what it cannot do without; without anything else it leaves that section out and says so in one line, as below. Fields are the contract’s; the upstream map (<code>GET /admin/upstream/map</code>) can say where the service keeps one it names otherwise.</p>
<h2>Features</h2><ul class="features" data-testid="features">${features}</ul>
<h2>Operations</h2><p class="small">Each operation as its CSV export reads it: everything but its rows may be missing.</p>
<table data-testid="operations"><thead><tr><th scope="col">Operation</th><th scope="col">Read</th></tr></thead><tbody>${operations}</tbody></table>
<footer class="page-foot"><p>The same answer as JSON: ask with <code>Accept: application/json</code>.</p></footer>`;
  return htmlDocument({ title: 'Compatibility check', section: 'admin', body, style: trusted(STYLE) });
}
