/**
 * A part of the Worker loaded at its first use instead of with the isolate:
 * `loadOnce(() => import('./part'))` gives a function that starts the import
 * once per isolate and hands every later caller the same promise.
 *
 * Bundled (`wrangler deploy`, `wrangler dev`), an `import()` stays within the
 * one module and only runs the part's top level, at once. Under the test
 * runner each `import()` is a request to the runner, and requests that share
 * one in flight can hang (workers-sdk issue 5387): one import per part and
 * isolate, started by test/setup.ts before the tests, keeps them apart.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  return once(load);
}

/**
 * A value built at its first use, then kept: `once(() => build())` (a part's
 * import is one such value: `loadOnce`). For what
 * a module would otherwise build when an isolate loads it though the first
 * `/api/v1` answer does not need it (the contract's response schemas).
 */
export function once<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
