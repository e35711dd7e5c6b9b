/**
 * The `mailto:` half of `List-Unsubscribe`: with Cloudflare Email Routing
 * sending `unsubscribe@<sending domain>` to this Worker, a mail whose subject
 * carries the signed token (`unsubscribe <token>`, as the header's mailto
 * prefills it) unsubscribes, like the one-click POST.
 */
import { verifyToken } from '../lib/signing';
import type { SubscriptionDeps } from './deps';
import { unsubscribeById } from './store';

export async function unsubscribeByMail(message: Pick<ForwardableEmailMessage, 'headers' | 'setReject'>, deps: Pick<SubscriptionDeps, 'db' | 'signingSecret' | 'now'>): Promise<'unsubscribed' | 'rejected'> {
  const token = /unsubscribe\s+(v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)/i.exec(message.headers.get('subject') ?? '')?.[1];
  const result = await verifyToken(deps.signingSecret, token, 'unsubscribe', deps.now());
  if (!result.ok) {
    message.setReject('This address only takes unsubscribe requests sent from the link in a digest.');
    return 'rejected';
  }
  await unsubscribeById(deps.db, String(result.claims.s), deps.now(), 'address');
  return 'unsubscribed';
}
