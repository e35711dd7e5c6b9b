/**
 * The subscriptions' routes in the product's OpenAPI document
 * (`GET /openapi.json`, assembled by src/app/openapi.ts): the key's API
 * (api-routes.ts) and the link pages (link-pages.ts), each route's text
 * beside them, with the schemas they answer.
 */
import * as z from 'zod';
import { parametersOf } from '../contract/openapi';
import {
  type FeatureDocs,
  type Fits,
  error,
  formBody,
  jsonBody,
  jsonOf,
  Market,
  ok,
  pageAnswer,
  READS_ACCOUNT,
  READS_BRAND,
  ref,
  requestId,
  TOKEN_PAGES,
  tokenParam,
} from '../contract/product-openapi';
import { CONFIRM_TTL, RESUBSCRIBE_TTL, UNSUBSCRIBE_TTL } from '../lib/signing';
import { MAX_BODY_BYTES as SUBSCRIBE_MAX_BYTES, SubscribeBody } from './api-routes';
import { CHANNEL_TYPES, type TestDelivery } from './alert-channels';
import { ACCOUNT_PER_DAY, ADDRESS_PER_DAY, OPTOUT_DAYS } from './caps';
import type { ConfirmationStatus } from './confirmation';
import { SUBSCRIPTIONS_BASE } from './links';
import { type LastDelivery, type publicView, SubscriptionKind } from './store';

const Subscription = z.object({
  id: z.string().regex(/^sub_[a-z0-9]{1,40}$/),
  email: z.string(),
  brand_id: z.number().int(),
  brand_name: z.string(),
  market: Market,
  kinds: z.array(SubscriptionKind).describe("`visibility` and `won_lost`: the weekly digest's parts; `alerts`: change alerts."),
  channel: z
    .object({ type: z.enum(CHANNEL_TYPES), url: z.string().optional() })
    .optional()
    .describe('Alerts only: where they go.'),
  quiet_hours: z.object({ start: z.string(), end: z.string() }).optional().describe('Alerts only: local times between which nothing is delivered.'),
  timezone: z.string().describe('IANA timezone: the digest goes on Mondays at 08:00 there; alerts are evaluated daily from 07:00 there.'),
  status: z
    .enum(['pending', 'active', 'paused', 'unsubscribed'])
    .describe(
      "`pending` until the address is confirmed; `paused` when the key can no longer read the brand; `unsubscribed` when the address stopped it from its own link (it may subscribe again from that page's link until the account removes the subscription).",
    ),
  paused_reason: z
    .string()
    .optional()
    .describe("Only while `paused`: why, as a code: the API's refusal of the key (`invalid_api_key`, `plan_inactive`…), or `endpoint_gone` for a Slack or webhook endpoint that is gone."),
  unsubscribed_at: z.iso.datetime().optional().describe('Only while `unsubscribed`: when the address unsubscribed.'),
  created_at: z.iso.datetime(),
  confirmed_at: z.iso.datetime().nullable(),
});

const LastDeliverySchema = z
  .object({
    kind: z.enum(['digest', 'alert']),
    at: z.iso.datetime().describe('When it was sent, or when it was given up.'),
    result: z.enum(['sent', 'skipped', 'failed']),
    reason: z
      .string()
      .nullable()
      .describe(
        'Why it was skipped or failed, in words; null when sent. For example: the Read API lacks an operation the digest needs (`The Read API has no getAnswerHistory operation (GET /answers/history answered 404 not_found), which the weekly report needs for the won and lost questions.`), nothing was measured, the mail service refused it, the key was refused (`paused: invalid_api_key`).',
      ),
  })
  .describe('The last digest or alert of the subscription that was sent, skipped or failed; null before the first.');

const ListedSubscription = Subscription.extend({ last_delivery: LastDeliverySchema.nullable() });

const Confirmation = z
  .object({ sent: z.boolean(), sent_at: z.iso.datetime(), resend_after: z.iso.datetime() })
  .describe(
    'The confirmation email: at most one per subscription every 10 minutes (`sent: false` inside that window), counted within its cycle: subscribing a paused or unsubscribed address again starts with none sent.',
  );

const TestDeliverySchema = z
  .object({ sent: z.boolean(), message_id: z.string(), sent_at: z.iso.datetime() })
  .describe('Slack and webhook channels: the test delivery posted to `channel.url`, carrying the signed link that confirms the subscription.');

const SubscribeResult = z.object({
  subscription: Subscription,
  confirmation: Confirmation.optional().describe('Only while the subscription is pending (by email; for Slack and webhooks when no test delivery went now).'),
  test_delivery: TestDeliverySchema.optional(),
  webhook_secret: z
    .string()
    .regex(/^whsec_/)
    .optional()
    .describe('Webhook channels: the Standard Webhooks signing secret, shown only in this answer (a new one when the subscription was not active).'),
});
const SubscriptionList = z.object({ subscriptions: z.array(ListedSubscription) });

const _answersFit: [
  Fits<ReturnType<typeof publicView>, z.output<typeof Subscription>>,
  Fits<LastDelivery, z.output<typeof LastDeliverySchema>>,
  Fits<ConfirmationStatus, z.output<typeof Confirmation>>,
  Fits<TestDelivery, z.output<typeof TestDeliverySchema>>,
] = [true, true, true, true];
void _answersFit;

const SUBSCRIPTION_ID = parametersOf('path', {
  id: z
    .string()
    .regex(/^sub_[a-z0-9]{1,40}$/)
    .meta({ description: "The subscription's id, from `GET /digests/subscriptions`." }),
});

export const subscriptionDocs: FeatureDocs = {
  schemas: { Subscription, SubscribeResult, SubscriptionList },
  inputs: { SubscribeBody },
  routes: {
    [`${SUBSCRIPTIONS_BASE}/subscriptions`]: {
      POST: {
        operationId: 'subscribe',
        tag: 'Subscriptions',
        summary: 'Subscribe to the weekly digest or to change alerts',
        description: `The key must read the brand and market (the same read the digest makes; its error is the answer). A new subscription is \`pending\` and a confirmation email goes out (its link works for ${CONFIRM_TTL / 86_400} days); subscribing again updates the one subscription of the address, brand and market. With \`"kinds": ["alerts"]\` and a \`channel\` of type \`slack\` or \`webhook\`, \`channel.url\` must be https and resolve only to public addresses (a 400 names \`channel.url\` otherwise); no email is sent: a test delivery posted there carries the signed confirm link, and a webhook's answer carries its signing secret (\`webhook_secret\`), once. One such subscription per URL, brand and market. Body: JSON, at most ${SUBSCRIBE_MAX_BYTES} bytes.`,
        security: 'key',
        requestBody: jsonBody('SubscribeBody', 'Who gets which digest. `brand_id` and `market` as in the Read API (default: the only brand, the primary market).'),
        responses: {
          '201': ok('Subscribed: a new subscription.', jsonOf('SubscribeResult')),
          '200': ok('Subscribed again: the existing subscription, updated.', jsonOf('SubscribeResult')),
          ...READS_BRAND,
          '429': {
            ...READS_BRAND['429'],
            description: `\`rate_limited\`, \`quota_exceeded\`: the API's limits, passed through; or \`rate_limited\` with no email sent, over a cap on confirmation mail: one mailbox gets at most ${ADDRESS_PER_DAY} in 24 hours across all accounts (an address counted case-folded and without a \`+tag\`; a Slack or webhook URL by its receiver: scheme, host and port), an account (the brands its key reads) sends at most ${ACCOUNT_PER_DAY} in 24 hours, and a mailbox that unsubscribed gets none for ${OPTOUT_DAYS} days (only its own subscribe-again link can). \`Retry-After\`: when the oldest counted send leaves the 24 hours, or the ${OPTOUT_DAYS} days end.`,
          },
        },
      },
      GET: {
        operationId: 'listSubscriptions',
        tag: 'Subscriptions',
        summary: "List the subscriptions of the key's account",
        description:
          'Every subscription of the brands the key can read, whatever its state (`pending`, `active`, `paused`, `unsubscribed`), with that state and its last delivery (`last_delivery`: the last digest or alert sent, skipped or failed, and why), oldest first. A key whose plan is inactive reads no brand: it gets the subscriptions last subscribed with that very key (and may remove them), as it may still list and revoke its links.',
        security: 'key',
        responses: { '200': ok('The subscriptions.', jsonOf('SubscriptionList')), ...READS_ACCOUNT },
      },
    },
    [`${SUBSCRIPTIONS_BASE}/subscriptions/{id}`]: {
      DELETE: {
        operationId: 'unsubscribe',
        tag: 'Subscriptions',
        summary: 'Remove one subscription, for good',
        description:
          "Final, in every state (`pending`, `active`, `paused`, `unsubscribed`): no link the address was sent before (confirm, unsubscribe, subscribe again, view in browser, that page's CSV links, an alert channel's confirmation) works again, each answering 410, and nothing more is sent; subscribing the address again makes a new subscription, confirmed anew. Another account's subscription is answered like a missing one: 404.",
        security: 'key',
        parameters: SUBSCRIPTION_ID,
        responses: {
          '204': { description: 'Removed.', headers: requestId },
          '400': error('`invalid_parameter` (`id`): not valid percent-encoding'),
          ...READS_ACCOUNT,
          '404': error('`not_found`: no such subscription for this account'),
        },
      },
    },
    [`${SUBSCRIPTIONS_BASE}/confirm`]: {
      GET: {
        operationId: 'showConfirm',
        tag: 'Subscriptions',
        summary: 'The confirm page (the link of the confirmation email)',
        description: `Shows a button that posts to the same address; a GET confirms nothing, so mail scanners that prefetch links cannot confirm for the reader. An active subscription shows when its next digest arrives. The link works for ${CONFIRM_TTL / 86_400} days.`,
        security: 'none',
        parameters: tokenParam('confirmation'),
        responses: {
          '200': pageAnswer('The page with the button (or: already confirmed).'),
          ...TOKEN_PAGES,
          '409': pageAnswer('The subscription was cancelled or paused after the link was sent.'),
        },
      },
      POST: {
        operationId: 'confirmSubscription',
        tag: 'Subscriptions',
        summary: "Confirm an address (the confirm page's button)",
        description: 'Double opt-in: the subscription becomes `active`; the page says when the first digest arrives. Idempotent. Takes no body.',
        security: 'none',
        parameters: tokenParam('confirmation'),
        responses: {
          '200': pageAnswer('Confirmed (or: already confirmed).'),
          ...TOKEN_PAGES,
          '409': pageAnswer('The subscription was cancelled or paused after the link was sent.'),
        },
      },
      HEAD: {
        operationId: 'checkConfirmLink',
        tag: 'Subscriptions',
        summary: 'Check the confirmation link without confirming',
        description: 'For link checkers: answers 200 with no body and confirms nothing.',
        security: 'none',
        responses: { '200': { description: 'Nothing confirmed.', headers: requestId } },
      },
    },
    [`${SUBSCRIPTIONS_BASE}/unsubscribe`]: {
      GET: {
        operationId: 'showUnsubscribe',
        tag: 'Subscriptions',
        summary: 'The unsubscribe page (the link of every email)',
        description: `Shows a button that posts to the same address; a GET unsubscribes no one, so link scanners that prefetch URLs cannot. The link works for ${UNSUBSCRIBE_TTL / 86_400} days.`,
        security: 'none',
        parameters: tokenParam('unsubscribe'),
        responses: { '200': pageAnswer('The page with the button (or: already unsubscribed).'), ...TOKEN_PAGES },
      },
      POST: {
        operationId: 'oneClickUnsubscribe',
        tag: 'Subscriptions',
        summary: 'One-click unsubscribe (RFC 8058)',
        description: "The `List-Unsubscribe-Post` target of every email, and the page's button. Idempotent.",
        security: 'none',
        parameters: tokenParam('unsubscribe'),
        requestBody: formBody({ required: false, properties: { 'List-Unsubscribe': { type: 'string', const: 'One-Click' } } }),
        responses: { '200': pageAnswer('Unsubscribed.'), ...TOKEN_PAGES },
      },
    },
    [`${SUBSCRIPTIONS_BASE}/resubscribe`]: {
      GET: {
        operationId: 'showResubscribe',
        tag: 'Subscriptions',
        summary: 'The "subscribe again" page (shown after unsubscribing)',
        description: `Shows a button that posts to the same address; a GET changes nothing. The link is given once, on the page shown right after unsubscribing, and works for ${RESUBSCRIBE_TTL / 86_400} days.`,
        security: 'none',
        parameters: tokenParam('subscribe-again'),
        responses: { '200': pageAnswer('The page with the button (or: already subscribed).'), ...TOKEN_PAGES },
      },
      POST: {
        operationId: 'resubscribe',
        tag: 'Subscriptions',
        summary: 'Subscribe again',
        description: 'Puts the subscription back to `pending` and sends a new confirmation email (double opt-in again). Answers a page.',
        security: 'none',
        parameters: tokenParam('subscribe-again'),
        responses: {
          '200': pageAnswer(
            'A new confirmation email went out; or one of this round went out in the last 10 minutes, and the page says from when its button sends another (unsubscribing starts a new round with none sent, so the first press sends at once).',
          ),
          ...TOKEN_PAGES,
          '429': {
            ...pageAnswer(
              `No email sent: the mailbox (or the endpoint's receiver) has had ${ADDRESS_PER_DAY} confirmations in 24 hours, or the account ${ACCOUNT_PER_DAY} (the ${OPTOUT_DAYS} days after an unsubscribe do not hold this link back).`,
            ),
            headers: { ...requestId, 'Retry-After': ref('headers', 'Retry-After') },
          },
        },
      },
    },
  },
};
