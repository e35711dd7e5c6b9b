/**
 * The Worker the tests run (vitest.config.ts `main`): the product's, built
 * with the tests' seams (test/seams.ts), and its gate with the tests' upstream.
 */
import { createWorker } from '../src/app/worker';
import { UpstreamGate as ProductGate, type UpstreamConfig } from '../src/proxy';
import { seams } from './seams';

export { ProxyStats } from '../src/proxy';

export class UpstreamGate extends ProductGate {
  protected override upstream(upstreamUrl?: string): UpstreamConfig {
    const configured = super.upstream(upstreamUrl);
    const override = seams.upstream;
    if (!override) return configured;
    return { ...configured, ...(typeof override === 'function' ? override(configured) : override) };
  }
}

export default createWorker({ services: () => seams.services ?? {}, proxyTimeout: () => seams.proxyTimeout });
