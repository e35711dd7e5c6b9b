/**
 * The tests' seams into the Worker they run (test/worker.ts): services (clock,
 * mailer, `api`, sleep) for every request and event, and the upstream of
 * every gate. Production code has no switch of its own: test/worker.ts builds
 * the Worker with these. Call with nothing to restore.
 */
import type { Services } from '../src/app/services';
import type { StartTimeout, UpstreamConfig } from '../src/proxy';

export type UpstreamOverride = Partial<UpstreamConfig> | ((configured: UpstreamConfig) => Partial<UpstreamConfig>);

export const seams: { services?: Partial<Services>; upstream?: UpstreamOverride; proxyTimeout?: StartTimeout } = {};

/** Holds the proxy's soft-deadline timer (the test expires it when it chooses). */
export function useProxyTimeoutForTests(next?: StartTimeout): void {
  seams.proxyTimeout = next;
}

/** Replaces some services for the Worker's handlers (fetch, scheduled, queue, email). */
export function useServicesForTests(next?: Partial<Services>): void {
  seams.services = next;
}

/** Replaces the upstream of every proxy gate, e.g. with a counting, fault-injecting origin, or wraps the configured one (pass a function). */
export function useUpstreamForTests(next?: UpstreamOverride): void {
  seams.upstream = next;
}
