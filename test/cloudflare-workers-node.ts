/**
 * `cloudflare:workers` in the unit project (plain Node, vitest.config.ts): the base class the proxy's Durable
 * Objects extend (src/proxy/gate.ts, src/proxy/stats.ts), so a unit test may import a module whose graph defines
 * them. A unit test constructs none: that needs workerd and the Worker's bindings, the worker project's tests.
 */
export class DurableObject {
  constructor() {
    throw new Error('A Durable Object in the unit project: its test belongs in test/ (the worker project)');
  }
}
