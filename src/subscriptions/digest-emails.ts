/** The weekly digest as each subscriber gets it: rendered once, then personal links and headers. */
import type { OutgoingEmail } from '../mail/mailer';
import { renderDigest, type RenderedEmail } from '../mail/render';
import type { DigestKind, Report } from '../weekly-report/model';
import type { SubscriptionDeps } from './deps';
import { reportUrl, unsubscribeHeaders, unsubscribeUrl } from './links';
import { kindsOf, type SubscriptionRow } from './store';

/** Link stand-ins in the rendered template, replaced by each recipient's own links. */
const PLACEHOLDER = { unsubscribe: 'https://placeholder.invalid/unsubscribe', report: 'https://placeholder.invalid/report' } as const;

/**
 * Digest emails for many recipients: the template renders once per kinds
 * variant (rendering is the costly part), then each recipient gets their own
 * signed unsubscribe and report links and the RFC 8058 headers.
 */
export function digestEmails(deps: Pick<SubscriptionDeps, 'publicUrl' | 'signingSecret' | 'now' | 'from'>, reportFor: (kinds: DigestKind[]) => Report) {
  const rendered = new Map<string, RenderedEmail>();
  /** `issuedAt` signs the links (now by default); the same time gives the same email, byte for byte. */
  return async (row: SubscriptionRow, entityRef: string, issuedAt: Date = deps.now()): Promise<OutgoingEmail> => {
    const kinds = kindsOf(row);
    const variant = kinds.join(',');
    let mail = rendered.get(variant);
    if (!mail) {
      mail = await renderDigest({ report: reportFor(kinds), links: { unsubscribe: PLACEHOLDER.unsubscribe, viewInBrowser: PLACEHOLDER.report } });
      rendered.set(variant, mail);
    }
    const unsubscribe = await unsubscribeUrl(deps, row, issuedAt);
    const report = await reportUrl(deps, row, issuedAt);
    const personal = (text: string) => text.replaceAll(PLACEHOLDER.unsubscribe, unsubscribe).replaceAll(PLACEHOLDER.report, report);
    return {
      kind: 'digest',
      from: deps.from,
      to: row.email,
      subject: mail.subject,
      html: personal(mail.html),
      text: personal(mail.text),
      headers: { ...unsubscribeHeaders(unsubscribe, deps.from), 'X-Entity-Ref-ID': entityRef },
    };
  };
}
