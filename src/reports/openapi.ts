/**
 * The reports' routes in the product's OpenAPI document (`GET /openapi.json`,
 * assembled by src/app/openapi.ts): the weekly report, report links, send-now
 * and the kept history (routes.ts, history.ts), each route's text beside
 * them, with the schemas they answer.
 */
import * as z from 'zod';
import { parametersOf } from '../contract/openapi';
import {
  type FeatureDocs,
  type Fits,
  error,
  HTML,
  jsonBody,
  jsonOf,
  KEY_UNCONFIRMED,
  KEYED_ERRORS,
  keyed,
  Market,
  ok,
  pageAnswer,
  query,
  READS_BRAND,
  ref,
  requestId,
  TEXT,
  TOKEN_PAGES,
} from '../contract/product-openapi';
import { EXPORT_LINK_BASE } from '../links/export-links';
import { LINK_DAYS } from '../links/keyed-routes';
import { MAX_LIVE_LINKS } from '../links/link-store';
import { HISTORY_WEEKS } from '../weekly-report/history';
import type { ReportSource } from '../weekly-report/read';
import { HISTORY_QUERY } from './history';
import { LINK_ID, type ListedReportLink, REPORT_KINDS } from './links';
import { LINK_BASE, LINK_QUERY, LinkBody, REPORTS_BASE, SEND_QUERY, WEEKLY_QUERY } from './routes';
import type { SendResult } from './send';
import { VIEW_KINDS, VIEWS } from '../views';
import { VIEW_QUERY, VIEWS_BASE } from './view-routes';

const RecentlySent = z.object({
  error: z.object({ code: z.literal('recently_sent'), message: z.string() }),
  last_send: z.object({ id: z.string(), sent_at: z.iso.datetime() }).describe('The send that went within the last 10 minutes.'),
});

const ReportLinkId = z.string().regex(LINK_ID);
const ReportLink = z.object({
  link: z.object({
    id: ReportLinkId.describe('Revoke the link with `DELETE /reports/links/{id}`.'),
    url: z.url().describe('Shown here only: the token is not stored, so `GET /reports/links` cannot show it again.'),
    brand_id: z.number().int(),
    market: Market,
    kind: z.enum(REPORT_KINDS),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
  }),
});
const ReportLinkList = z.object({
  links: z
    .array(z.object({ id: ReportLinkId, brand_id: z.number().int(), market: Market, kind: z.enum(REPORT_KINDS), created_at: z.iso.datetime(), expires_at: z.iso.datetime() }))
    .describe("The key's live links (not revoked, not expired), oldest first."),
  max_live: z.number().int().describe('The most live links a key may have.'),
  note: z.string().describe("That a link's URL is shown once, when it is made."),
});
const _linksFit: Fits<ListedReportLink, z.output<typeof ReportLinkList>['links'][number]> = true;
void _linksFit;

const SendAnswer = z.object({
  send: z.object({
    brand_id: z.number().int(),
    market: Market,
    recipients: z.number().int().min(0),
    sent: z.number().int().min(0),
    failed: z.number().int().min(0),
    id: z.string().optional(),
    sent_at: z.iso.datetime().optional(),
    subject: z.string().optional(),
    note: z
      .string()
      .optional()
      .describe('Why nothing was sent: no confirmed subscriber, nothing measured in the last two weeks, or figures that break a rule the spec implies (the first violation in words).'),
    violations: z
      .array(z.object({ rule: z.string(), operation: z.string().nullable(), fields: z.array(z.string()), values: z.record(z.string(), z.unknown()), message: z.string() }))
      .optional()
      .describe('The rules the figures break (src/contract/plausibility.ts), when that is why nothing was sent.'),
  }),
});

const ReportSourceSchema = z.object({
  read_at: z.iso.datetime(),
  from_cache: z.enum(['all', 'some', 'none']).describe('Whether the reads were answered by the edge cache.'),
  max_age_seconds: z.number().int().nullable(),
});
const WeeklyReport = z.object({
  report: z.record(z.string(), z.unknown()).describe('The weekly report model (src/weekly-report/model.ts `Report`): the week, visibility, won and lost questions.'),
  source: ReportSourceSchema,
});

const _answersFit: [Fits<SendResult & { brand_id: number; market: { id: number; code: string } }, z.output<typeof SendAnswer>['send']>, Fits<ReportSource, z.output<typeof ReportSourceSchema>>] = [
  true,
  true,
];
void _answersFit;

const ViewAnswer = z.object({
  view: z
    .record(z.string(), z.unknown())
    .describe(
      `One view (src/views/model.ts \`View\`), by \`kind\` (${VIEW_KINDS.join(', ')}): the brand, the market, and each part as read, or \`{provided: false, reason, line}\` where the plan or the service does not provide it.`,
    ),
});

/** The Read API's failure (`KEYED_ERRORS['502']`), as a page when a page was asked for. */
const UPSTREAM_PAGE_OR_JSON = { ...KEYED_ERRORS['502'], content: { ...jsonOf('Error'), ...HTML } };

/** What `GET` and `POST` of the weekly report answer: the page, the report model as JSON or the plain-text digest, and the refusals of a brand read. */
const weeklyAnswers = (description: string) => ({
  '200': ok(description, { ...HTML, ...jsonOf('WeeklyReport'), ...TEXT }),
  ...READS_BRAND,
  '502': UPSTREAM_PAGE_OR_JSON,
});

export const reportDocs: FeatureDocs = {
  schemas: { RecentlySent, ReportLink, ReportLinkList, SendAnswer, ViewAnswer, WeeklyReport },
  inputs: { LinkBody },
  routes: {
    [`${REPORTS_BASE}/weekly`]: {
      GET: {
        operationId: 'getWeeklyReport',
        tag: 'Reports',
        summary: 'Get the weekly report',
        description:
          'The report of the last week for one brand and market, read with the key through the edge cache: a page, the report model as JSON, or the plain-text digest. When the Read API does not answer, `format=html` gets a 502 page and the others the JSON error; so too when it lacks an operation the report needs (it answers 404 while the others answer): a 502 page naming the operation and what the report needs it for, or `operation_missing` with `operation`.',
        security: 'key',
        parameters: query(WEEKLY_QUERY),
        responses: weeklyAnswers('The report.'),
      },
      POST: {
        operationId: 'makeWeeklyCsvLinks',
        tag: 'Reports',
        summary: "Make the weekly report page's CSV links",
        description:
          "The page of `GET`, with a CSV link under each table it shows (the key's own export links, listed by `GET /exports/links`). A `GET` makes no link: a link is a stored row, made only when asked for, and only once the upstream confirms the key now (a revoked key makes none).",
        security: 'key',
        parameters: query(WEEKLY_QUERY),
        responses: weeklyAnswers('The page, with its CSV links.'),
      },
    },
    [`${VIEWS_BASE}/{view}`]: {
      GET: {
        operationId: 'getView',
        tag: 'Reports',
        summary: 'Get a view: rivals, citations, perception or AI traffic',
        description: `${VIEW_KINDS.map((k) => `\`${k}\`: ${VIEWS[k].says}`).join(' ')} Read with the key through the edge cache, as a page with a CSV link under each table, or as JSON. A part the plan does not include (403), whose integration is not connected (409) or that the service does not have (404) is one line (\`provided: false\`), never an error.`,
        security: 'key',
        parameters: [{ name: 'view', in: 'path', required: true, description: 'Which view.', schema: { type: 'string', enum: [...VIEW_KINDS] } }, ...query(VIEW_QUERY)],
        responses: {
          '200': ok('The view.', { ...HTML, ...jsonOf('ViewAnswer') }),
          ...READS_BRAND,
          '404': { description: '`not_found`: no such view; `brand_not_found`: the key reads no such brand.', headers: requestId, content: jsonOf('Error') },
          '502': UPSTREAM_PAGE_OR_JSON,
        },
      },
      POST: {
        operationId: 'makeViewCsvLinks',
        tag: 'Reports',
        summary: "Make a view page's CSV links",
        description:
          "The page of `GET`, with a CSV link under each table it shows (the key's own export links, listed by `GET /exports/links`). A `GET` makes no link: a link is a stored row, made only when asked for, and only once the upstream confirms the key now (a revoked key makes none).",
        security: 'key',
        parameters: [{ name: 'view', in: 'path', required: true, description: 'Which view.', schema: { type: 'string', enum: [...VIEW_KINDS] } }, ...query(VIEW_QUERY)],
        responses: {
          '200': ok('The page, with its CSV links.', HTML),
          '503': { ...KEY_UNCONFIRMED, content: { ...jsonOf('Error'), ...HTML } },
          ...READS_BRAND,
          '404': { description: '`not_found`: no such view; `brand_not_found`: the key reads no such brand.', headers: requestId, content: jsonOf('Error') },
          '502': UPSTREAM_PAGE_OR_JSON,
        },
      },
    },
    [`${REPORTS_BASE}/links`]: {
      POST: {
        operationId: 'createReportLink',
        tag: 'Report links',
        summary: 'Create a signed report link',
        description: `A link that opens the report without a key, for ${LINK_DAYS.min} to ${LINK_DAYS.max} days (default ${LINK_DAYS.default}). The key must read the brand and market. Fields go in the JSON body; a query string is refused. The URL is shown in this answer only (the token is not stored). A key has at most ${MAX_LIVE_LINKS} live links (not revoked, not expired): past that, 409 \`too_many_links\`, made and counted atomically.`,
        security: 'key',
        requestBody: jsonBody('LinkBody', 'Which report, and for how long.'),
        responses: {
          '201': ok('The link (also in `Location`).', jsonOf('ReportLink'), { Location: { description: "The link's URL.", schema: { type: 'string', format: 'uri' } } }),
          ...READS_BRAND,
          '409': error(
            `\`too_many_links\`: the key has ${MAX_LIVE_LINKS} live links already; revoke one (\`DELETE ${REPORTS_BASE}/links/{id}\`) or wait until one expires (the message says when the first does)`,
          ),
        },
      },
      GET: {
        operationId: 'listReportLinks',
        tag: 'Report links',
        summary: "List the key's live report links",
        description: `The links this key made that still work (not revoked, not expired), oldest first: at most ${MAX_LIVE_LINKS}. Without their URLs: a link's token is not stored, its URL was shown once, when it was made. Only the key that made a link lists it (not other keys of the account). A key whose plan is inactive may still list and revoke.`,
        security: 'key',
        responses: { '200': ok('The links.', jsonOf('ReportLinkList')), ...keyed('400', '401', '405', '429', '502') },
      },
    },
    [`${REPORTS_BASE}/links/{id}`]: {
      DELETE: {
        operationId: 'revokeReportLink',
        tag: 'Report links',
        summary: 'Revoke a report link',
        description:
          "The link stops working at once: its row and the sealed key are deleted, and opening it answers 410, as do the CSV links its pages handed out. Another key's link, an expired one or an unknown id is answered like a missing one: 404.",
        security: 'key',
        parameters: parametersOf('path', { id: ReportLinkId.meta({ description: "The link's id, from `POST /reports/links` or `GET /reports/links`." }) }),
        responses: { '204': { description: 'Revoked.', headers: requestId }, ...keyed('400', '401', '405', '429', '502'), '404': error('`not_found`: no such live link for this key') },
      },
    },
    [`${REPORTS_BASE}/weekly/send`]: {
      POST: {
        operationId: 'sendDigestNow',
        tag: 'Reports',
        summary: 'Send the weekly digest now',
        description:
          'To the confirmed subscribers of the brand and market, and to no one else: the request takes no body. At most once per 10 minutes per brand and market (409 `recently_sent` otherwise).',
        security: 'key',
        parameters: query(SEND_QUERY),
        responses: {
          '202': ok('Sent, or nothing to send (`note` says why).', jsonOf('SendAnswer')),
          ...READS_BRAND,
          '409': {
            description: '`recently_sent`: the digest of this brand and market went out within the last 10 minutes.',
            headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') },
            content: jsonOf('RecentlySent'),
          },
          '502': error('`upstream_error`: the Read API did not answer, or the mail service refused the send (nothing went out)'),
        },
      },
    },
    [`${LINK_BASE}/{token}`]: {
      GET: {
        operationId: 'openReportLink',
        tag: 'Report links',
        summary: 'Open a report link',
        description: "The report the link names, read with the key it was minted with. Pages for a person; with `format=json` or `text`, the Read API's errors as JSON.",
        security: 'none',
        parameters: [{ name: 'token', in: 'path', required: true, description: "The link's signed token.", schema: { type: 'string', minLength: 1 } }, ...query(LINK_QUERY)],
        responses: {
          '200': ok('The report, or the view the link was made for (JSON: `ViewAnswer`; no text form).', { ...HTML, ...jsonOf('WeeklyReport'), ...TEXT }),
          '400': pageAnswer('An unknown option, or a malformed link.'),
          '401': { description: 'The key behind the link was revoked.', headers: requestId, content: { ...HTML, ...jsonOf('Error') } },
          '403': { description: 'A forged or changed link, or the account cannot read the report.', headers: requestId, content: { ...HTML, ...jsonOf('Error') } },
          '404': { description: 'The brand or market no longer exists for the account.', headers: requestId, content: { ...HTML, ...jsonOf('Error') } },
          '410': pageAnswer("An expired or revoked link, or a digest's link whose subscription was unsubscribed, removed by the account or subscribed again since."),
          '429': {
            description: "The Read API's rate limit or quota for the key behind the link (`rate_limited`, `quota_exceeded`), with its `Retry-After`.",
            headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') },
            content: { ...HTML, ...jsonOf('Error') },
          },
          '502': {
            description:
              'The Read API did not answer (`upstream_error`), or lacks an operation the report needs (`operation_missing`, naming it in `operation`; the page names it and what it is needed for).',
            headers: requestId,
            content: { ...HTML, ...jsonOf('Error') },
          },
        },
      },
    },
    [`${LINK_BASE}`]: {
      GET: {
        operationId: 'openReportLinkWithoutToken',
        tag: 'Report links',
        summary: 'A report link cut short before its token',
        description: `\`${LINK_BASE}/\` answers the same (\`x-also-at\`).`,
        security: 'none',
        responses: { '400': pageAnswer('A malformed link.') },
      },
    },
    [`${REPORTS_BASE}/history`]: {
      GET: {
        operationId: 'getHistory',
        tag: 'Reports',
        summary: 'Get the kept weekly history',
        description: `Up to ${HISTORY_WEEKS} weeks (2 years) of the brand's weekly figures in the market, as kept in D1 when digests are read and weekly by the cron: a page with a chart and a table, and the form that makes its CSV link (\`POST\`). The key must read the brand and market.`,
        security: 'key',
        parameters: query(HISTORY_QUERY),
        responses: { '200': ok('The page.', HTML), ...READS_BRAND },
      },
      POST: {
        operationId: 'makeHistoryCsvLink',
        tag: 'Reports',
        summary: "Make the history page's CSV link",
        description: `The page of \`GET\`, with its CSV link (\`${EXPORT_LINK_BASE}/<token>.csv\`, kind \`history\`), made once the upstream confirms the key now; a \`GET\` makes none.`,
        security: 'key',
        parameters: query(HISTORY_QUERY),
        responses: { '200': ok('The page, with its CSV link.', HTML), ...READS_BRAND },
      },
    },
    [`${LINK_BASE}/{token}/history`]: {
      GET: {
        operationId: 'openReportLinkHistory',
        tag: 'Report links',
        summary: 'The kept weekly history through a report link',
        description: "The history page of the report link's brand and market, read with the key the link was minted with, and the form that makes its CSV link (`POST /r/{token}/history/csv`).",
        security: 'none',
        parameters: [{ name: 'token', in: 'path', required: true, description: "The report link's signed token.", schema: { type: 'string', minLength: 1 } }],
        responses: {
          '200': pageAnswer('The page.'),
          ...TOKEN_PAGES,
          '401': pageAnswer('The key behind the link was revoked.'),
          '404': pageAnswer("The brand or market no longer exists for the account, or the link is a view's (a link opens only what it names: the history is the weekly report's)."),
          '410': pageAnswer('An expired or revoked link.'),
          '429': pageAnswer("The API's limit for the key behind the link."),
          '502': pageAnswer('The Read API did not answer.'),
        },
      },
    },
    [`${LINK_BASE}/{token}/csv`]: {
      POST: {
        operationId: 'makeReportLinkCsvLinks',
        tag: 'Report links',
        summary: "Make a report link page's CSV links",
        description:
          "The page of a report link, with a CSV link under each table it shows, ending with the report link; posted by the page's own form (from another site: 403). Opening the link makes no CSV link; this does, once the upstream confirms the key behind the link now.",
        security: 'none',
        parameters: [{ name: 'token', in: 'path', required: true, description: "The report link's signed token.", schema: { type: 'string', minLength: 1 } }],
        responses: {
          '200': pageAnswer('The page, with its CSV links.'),
          ...TOKEN_PAGES,
          '401': pageAnswer('The key behind the link was revoked.'),
          '404': pageAnswer('The brand or market no longer exists for the account.'),
          '410': pageAnswer('An expired or revoked link.'),
          '429': pageAnswer("The API's limit for the key behind the link."),
          '502': pageAnswer('The Read API did not answer.'),
        },
      },
    },
    [`${LINK_BASE}/{token}/history/csv`]: {
      POST: {
        operationId: 'makeReportLinkHistoryCsvLink',
        tag: 'Report links',
        summary: "Make a report link history page's CSV link",
        description:
          "The history page of a weekly report's link with its CSV link, ending with the report link; posted by the page's own form (from another site: 403), once the upstream confirms the key behind the link now. A view's link has no such page (404).",
        security: 'none',
        parameters: [{ name: 'token', in: 'path', required: true, description: "The report link's signed token.", schema: { type: 'string', minLength: 1 } }],
        responses: {
          '200': pageAnswer('The page, with its CSV link.'),
          ...TOKEN_PAGES,
          '401': pageAnswer('The key behind the link was revoked.'),
          '404': pageAnswer("The link is a view's, or its brand or market no longer exists for the account."),
          '410': pageAnswer('An expired or revoked link.'),
          '429': pageAnswer("The API's limit for the key behind the link."),
          '502': pageAnswer('The Read API did not answer.'),
        },
      },
    },
    /** `/r/` is no OpenAPI path of its own (a trailing slash): documented as `x-also-at` of `/r`. */
    [`${LINK_BASE}/`]: { GET: { sameAs: LINK_BASE } },
  },
};
