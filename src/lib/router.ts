/**
 * A route table for the product's own routes: paths with `{name}` segments,
 * a handler per method, matched by itty-router. One matcher gives every route
 * the same answers to the same mistakes: an unknown path is `not_found`, a
 * known path with another method is `method_not_allowed` with the path's own
 * `Allow`, a trailing slash is a different path (as in the API), and a path
 * parameter that is not valid percent-encoding (`%ZZ`, `%`, a cut UTF-8
 * sequence such as `%E0%A4%A`) is `bad_encoding` naming it, which the caller
 * answers 400 `invalid_parameter`: never an exception, never a handler given
 * the raw text.
 *
 * ```ts
 * const routes: Route<Deps>[] = [{ path: '/digests/subscriptions/{id}', answers: 'json', methods: { DELETE: (request, params, deps) => remove(request, deps, params.id!) } }];
 * const found = await matchRoute(routes, request.method, url.pathname);
 * ```
 */
import { IttyRouter } from 'itty-router/IttyRouter';

/** Whether `pathname` is `base` or below it: `/reports` and `/reports/weekly`, not `/reportsx`. */
export const under = (pathname: string, base: string): boolean => pathname === base || pathname.startsWith(`${base}/`);

export type Method = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type Handler<D> = (request: Request, params: Record<string, string>, deps: D, url: URL) => Promise<Response> | Response;

export interface Route<D> {
  /** `/digests/subscriptions/{id}`: a `{name}` matches one non-empty segment. */
  path: string;
  /** A GET handler answers HEAD too, unless HEAD has its own. */
  methods: Partial<Record<Method, Handler<D>>>;
  /** How an unexpected failure is shown: JSON in the API's error shape, a page for a person who followed a link, or plain text for a tool reading a file (a CSV link). */
  answers: 'json' | 'page' | 'text';
  /**
   * The answer (a 400) when a path parameter is not valid percent-encoding, for a route that has a better one
   * than the default (400 `invalid_parameter` naming the parameter, or a 400 page), e.g. a link's "cut or changed" page.
   */
  badEncoding?: (param: string) => Response;
}

export type RouteMatch<D> =
  | { kind: 'found'; route: Route<D>; handler: Handler<D>; params: Record<string, string> }
  | { kind: 'method_not_allowed'; route: Route<D>; allow: string }
  /** The path and method match, but the path parameter `param` does not decode. */
  | { kind: 'bad_encoding'; route: Route<D>; param: string }
  | { kind: 'not_found' };

type PathRouter = ReturnType<typeof IttyRouter>;
/** What the routers are asked with: itty-router writes `params` (as written, still percent-encoded) onto it. */
type Probe = { method: string; url: string; slashes: number; params?: Record<string, string> };

/** One router per table, built on its first match: the tables are constants. */
const routers = new WeakMap<readonly Route<unknown>[], PathRouter>();

/**
 * The table as an itty-router: each route registered for every method (`all`), its
 * handler answering the route itself, so the first route whose path matches wins and
 * the method is judged here, against that path's own methods.
 */
function routerOf(routes: readonly Route<unknown>[]): PathRouter {
  let router = routers.get(routes);
  if (!router) {
    router = IttyRouter();
    for (const route of routes) {
      const slashes = trailingSlashes(route.path);
      // itty-router lets any trailing slashes match; here `/r/` is another path than `/r` (as in the API), so a
      // route whose slashes differ passes (undefined) to the next one.
      router.all(ittyPath(route.path), (probe: Probe) => (probe.slashes === slashes ? route : undefined));
    }
    routers.set(routes, router);
  }
  return router;
}

function trailingSlashes(path: string): number {
  let n = 0;
  while (path[path.length - 1 - n] === '/') n++;
  return n;
}

/** Segments of letters, digits, `_`, `-`, `.` and `{name}` parameters, and at most a trailing slash. */
const PLAIN_PATH = /^(\/([\w.-]|\{\w+\})+)+\/?$/;

/** `/r/{token}` as itty-router writes it, `/r/:token`; itty reads `:`, `*`, `+` and regex syntax in a path, so a product path has none of them. */
function ittyPath(path: string): string {
  if (!PLAIN_PATH.test(path)) throw new Error(`A route's path is segments of letters, digits, _ - . and {name}, and at most a trailing slash: ${path}`);
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** The `Allow` of a route: its methods, HEAD with GET. */
export const allowOf = (route: Route<unknown>): string => {
  const methods = Object.keys(route.methods) as Method[];
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  return methods.join(', ');
};

/** The route of `routes` that `pathname` (a URL's `pathname`, still percent-encoded) names, and what `method` gets there. */
export async function matchRoute<D>(routes: readonly Route<D>[], method: string, pathname: string): Promise<RouteMatch<D>> {
  // A request-like object of our own: itty-router writes `params` and `query` onto what it is given.
  const probe: Probe = { method, url: `https://route.invalid${pathname}`, slashes: trailingSlashes(pathname) };
  const route = (await routerOf(routes as readonly Route<unknown>[]).fetch(probe)) as Route<D> | undefined;
  if (!route) return { kind: 'not_found' };
  // The method first: a path's `Allow` does not depend on what its parameters say.
  const handler = route.methods[method as Method] ?? (method === 'HEAD' ? route.methods.GET : undefined);
  if (!handler) return { kind: 'method_not_allowed', route, allow: allowOf(route as Route<unknown>) };
  // itty-router gives parameters as written; a malformed escape is the caller's 400, never a URIError.
  const params: Record<string, string> = {};
  for (const [name, raw] of Object.entries(probe.params ?? {})) {
    try {
      params[name] = decodeURIComponent(raw);
    } catch {
      return { kind: 'bad_encoding', route, param: name };
    }
  }
  return { kind: 'found', route, handler, params };
}
