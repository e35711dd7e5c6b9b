/**
 * A route table for the product's own routes: paths with `{name}` segments,
 * a handler per method. One matcher gives every route the same answers to the
 * same mistakes: an unknown path is `not_found`, a known path with another
 * method is `method_not_allowed` with the path's own `Allow`, a trailing slash
 * is a different path (as in the API), and a path parameter that is not
 * valid percent-encoding (`%ZZ`, `%`, a cut UTF-8 sequence such as
 * `%E0%A4%A`) is `bad_encoding` naming it, which the caller answers 400
 * `invalid_parameter`: never an exception, never a handler given the raw text.
 *
 * ```ts
 * const routes: Route<Deps>[] = [{ path: '/digests/subscriptions/{id}', methods: { DELETE: (request, params, deps) => remove(request, deps, params.id!) } }];
 * const found = matchRoute(routes, request.method, url.pathname);
 * ```
 */
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

/** A path template as a pattern: `{name}` matches one non-empty segment, everything else itself; `names` in order. */
export function pathPattern(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { pattern: new RegExp(`^${source}$`), names };
}

const compiled = new WeakMap<Route<unknown>, { pattern: RegExp; names: string[] }>();

function compile<D>(route: Route<D>) {
  let hit = compiled.get(route as Route<unknown>);
  if (!hit) {
    hit = pathPattern(route.path);
    compiled.set(route as Route<unknown>, hit);
  }
  return hit;
}

/** The `Allow` of a route: its methods, HEAD with GET. */
export const allowOf = (route: Route<unknown>): string => {
  const methods = Object.keys(route.methods) as Method[];
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  return methods.join(', ');
};

export function matchRoute<D>(routes: readonly Route<D>[], method: string, pathname: string): RouteMatch<D> {
  for (const route of routes) {
    const { pattern, names } = compile(route);
    const match = pattern.exec(pathname);
    if (!match) continue;
    // The method first: a path's `Allow` does not depend on what its parameters say.
    const handler = route.methods[method as Method] ?? (method === 'HEAD' ? route.methods.GET : undefined);
    if (!handler) return { kind: 'method_not_allowed', route, allow: allowOf(route as Route<unknown>) };
    const params: Record<string, string> = {};
    for (const [i, name] of names.entries()) {
      try {
        params[name] = decodeURIComponent(match[i + 1]!);
      } catch {
        return { kind: 'bad_encoding', route, param: name };
      }
    }
    return { kind: 'found', route, handler, params };
  }
  return { kind: 'not_found' };
}
