// The type of the test-only `TEST_MIGRATIONS` binding, and of Vite's `?raw` imports.
declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import('cloudflare:test').D1Migration[];
    /** Set by `npm test -- days` only: the day the suite runs as (test/run-clock.ts). */
    TEST_DAY?: string;
    /** The run's clock offset from the real time, in ms, fixed once by the config for every worker (test/run-clock.ts). */
    RUN_OFFSET?: string;
  }
}

/** Vite's `?raw` imports: a file's text (test/env-examples.unit.test.ts reads .dev.vars.example). */
declare module '*?raw' {
  const text: string;
  export default text;
}
