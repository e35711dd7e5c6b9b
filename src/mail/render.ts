/**
 * The emails, rendered (templates.ts: HTML with React Email, the text part
 * from that HTML). React, React DOM's renderer, html-to-text and the templates
 * load with the first email an isolate renders, not with the isolate: most
 * requests, all of /api/v1, render none.
 */
import type { AlertEmailProps } from '../../emails/alert';
import type { ConfirmSubscriptionEmailProps } from '../../emails/confirm-subscription';
import type { DigestEmailProps } from '../../emails/digest';
import type { PausedNoticeEmailProps } from '../../emails/paused-notice';
import { loadOnce } from '../lib/lazy';
import type { RenderedEmail } from './templates';

export type { RenderedEmail } from './templates';

const templates = loadOnce(() => import('./templates'));

export const renderDigest = async (props: DigestEmailProps): Promise<RenderedEmail> => (await templates()).renderDigest(props);
export const renderConfirmation = async (props: ConfirmSubscriptionEmailProps): Promise<RenderedEmail> => (await templates()).renderConfirmation(props);
export const renderPausedNotice = async (props: PausedNoticeEmailProps): Promise<RenderedEmail> => (await templates()).renderPausedNotice(props);
export const renderAlert = async (props: AlertEmailProps): Promise<RenderedEmail> => (await templates()).renderAlert(props);
