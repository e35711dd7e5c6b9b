/**
 * The `mailto:` half of `List-Unsubscribe`: with Cloudflare Email Routing
 * sending `unsubscribe@<sending domain>` to this Worker, a mail whose subject
 * carries the signed token (`unsubscribe <token>`, as the header's mailto
 * prefills it) unsubscribes, like the one-click POST: the cycle the token was
 * minted for, and no other (store.ts).
 */
import { verifyToken } from '../lib/signing';
import type { SubscriptionDeps } from './deps';
import { generationOf, linkEnd, subscriptionById, unsubscribeById } from './store';

export async function unsubscribeByMail(
  message: Pick<ForwardableEmailMessage, 'headers' | 'setReject'>,
  deps: Pick<SubscriptionDeps, 'db' | 'signingSecret' | 'now'>,
): Promise<'unsubscribed' | 'rejected'> {
  const token = /unsubscribe\s+(v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/i.exec(message.headers.get('subject') ?? '')?.[1];
  const result = await verifyToken(deps.signingSecret, token, 'unsubscribe', deps.now());
  if (!result.ok) {
    message.setReject('This address only takes unsubscribe requests sent from the link in a digest.');
    return 'rejected';
  }
  const row = await subscriptionById(deps.db, String(result.claims.s));
  // Nothing left to stop (unsubscribed, or removed by the account): the wish holds already, and nothing is recorded again.
  if (!row || row.status === 'unsubscribed') return 'unsubscribed';
  const generation = generationOf(result.claims);
  if (linkEnd(row, generation)) {
    message.setReject('This unsubscribe link is from an earlier round of the subscription, which was subscribed again since. Use the unsubscribe link in the latest email.');
    return 'rejected';
  }
  await unsubscribeById(deps.db, row.id, generation, deps.now());
  return 'unsubscribed';
}
