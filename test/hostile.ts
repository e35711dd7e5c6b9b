/**
 * What an attacker puts in the strings a page shows, and how a test sees
 * what a browser would build from the page (test/hostile-markup.ts, with no
 * binding, re-exported here).
 *
 * `HostileUpstream` is our embedded origin behind a service that puts those
 * strings in every field of its answers that the contract lets it choose
 * (names, questions, engines and other open values, domains, URLs): each
 * string field whose schema accepts the replacement, found by walking the
 * operation's response schema. The same original always gets the same
 * replacement, and a replacement sent back as a parameter (a question as
 * `prompt`, a rival's name in a path) is read as its original.
 */
import { env } from 'cloudflare:test';
import fc from 'fast-check';
import type * as z from 'zod';
import type { OperationId } from '../src/contract/operations';
import { matchOperation } from '../src/contract/request';
import { originTransport } from '../src/origin/transport';
import { useUpstreamForTests } from './seams';
import { zodSide } from '../src/contract/zod-side';
import { HOSTILE_STRINGS } from './hostile-markup';

export { dangerousAttributes, HOSTILE_STRINGS, type ParsedElement, parsePage, shapeOf } from './hostile-markup';

/** The contract's zod side: the response schemas the bodies are checked with. */
const zs = await zodSide();

/** FNV-1a: a short stable tag per original string, so replacements stay distinct. */
function tagOf(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

export type Swap = (original: string) => string;
/** A hostile string for each original, the same each time. */
export const hostile: Swap = (original) => {
  const tag = tagOf(original);
  return `${HOSTILE_STRINGS[parseInt(tag, 16) % HOSTILE_STRINGS.length]}~${tag}`;
};
/** A plain replacement of the same kind, for the shape to compare with. */
export const plain: Swap = (original) => `plain ${tagOf(original)}`;

/** Fields read back as parameters the edge checks by their form: a market's code stays itself. */
const KEPT_FIELDS = new Set(['code']);

type Schema = z.ZodType & { _zod: { def: Record<string, unknown> & { type: string } } };

/** `body`, an answer of `id`, with each string the contract lets the service choose replaced by `swap`. */
export const swapBody = <T>(id: OperationId, body: T, swap: Swap): T => rewrite(zs.response(id) as unknown as Schema, body, swap) as T;

/** `value` with each string the schema lets the service choose replaced by `swap` (which records what it did). */
function rewrite(schema: Schema, value: unknown, swap: Swap): unknown {
  const def = schema._zod.def;
  if (value === null || value === undefined) return value;
  switch (def.type) {
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const shape = def.shape as Record<string, Schema>;
      return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, shape[key] && !KEPT_FIELDS.has(key) ? rewrite(shape[key], v, swap) : v]));
    }
    case 'array':
      return Array.isArray(value) ? value.map((item) => rewrite(def.element as Schema, item, swap)) : value;
    case 'nullable':
    case 'optional':
    case 'default':
    case 'readonly':
    case 'catch':
      return rewrite(def.innerType as Schema, value, swap);
    case 'pipe':
      return rewrite(def.in as Schema, value, swap);
    case 'lazy':
      return rewrite((def.getter as () => Schema)(), value, swap);
    case 'union': {
      if (typeof value !== 'string') {
        const option = (def.options as Schema[]).find((o) => o.safeParse(value).success);
        return option ? rewrite(option, value, swap) : value;
      }
      break;
    }
  }
  if (typeof value !== 'string') return value;
  const replaced = swap(value);
  return schema.safeParse(replaced).success ? replaced : value;
}

/** See the module's comment. `as`: the demo key each of its keys reads as. */
export class HostileUpstream {
  /** Each replacement this service sent, with its original. */
  readonly originals = new Map<string, string>();
  private readonly origin = originTransport(env.DB);

  constructor(
    private readonly swap: Swap,
    private readonly as = 'demo_pro_single',
    /** A change of each answer after the swap (an item left out), by operation. */
    private readonly then: (id: OperationId, body: unknown) => unknown = (_, body) => body,
  ) {}

  install(): this {
    useUpstreamForTests({ transport: (request) => this.answer(request), baseUrl: 'https://hostile.test/api/v1', timeoutMs: 10_000, startTimeout: () => () => {} });
    return this;
  }

  /** Every replacement sent so far. */
  get sent(): string[] {
    return [...this.originals.keys()];
  }

  private readonly record: Swap = (original) => {
    const replaced = this.swap(original);
    this.originals.set(replaced, original);
    return replaced;
  };

  private async answer(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const back = (value: string) => this.originals.get(value) ?? value;
    const path = url.pathname
      .split('/')
      .map((segment) => encodeURIComponent(back(decodeURIComponent(segment))))
      .join('/');
    const query = new URLSearchParams([...url.searchParams].map(([name, value]) => [name, back(value)]));
    const answer = await this.origin(new Request(`http://origin.internal${path}${query.size ? `?${query}` : ''}`, { headers: { authorization: `Bearer ${this.as}` } }));
    const match = matchOperation(url.pathname);
    if (answer.status !== 200 || !match) return answer;
    const body = this.then(match.op.id, rewrite(zs.response(match.op.id) as unknown as Schema, await answer.json(), this.record));
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'private, max-age=300' } });
  }
}

/** `__proto__` and every other own name of Object.prototype (`constructor`, `toString`, `hasOwnProperty`...). */
export const PROTOTYPE_NAMES = [...new Set(['__proto__', ...Object.getOwnPropertyNames(Object.prototype)])];

/** The order prototype names are handed out in, and which rival of which day of the overview is left out. */
export const hostileWorld = fc.record({ order: fc.shuffledSubarray(PROTOTYPE_NAMES, { minLength: PROTOTYPE_NAMES.length }), day: fc.nat(), rival: fc.nat() });
export type World = { order: string[]; day: number; rival: number };

/** Each original string becomes a prototype name, the same for the same original, in the world's order (the names repeat past 12). */
export function prototypeSwap(world: Pick<World, 'order'>): Swap {
  const given = new Map<string, string>();
  return (original) => {
    if (!given.has(original)) given.set(original, world.order[given.size % world.order.length]!);
    return given.get(original)!;
  };
}

/** A service whose every open string is a prototype name, and one overview day short of a rival. */
export function installPrototypeNames(world: World): HostileUpstream {
  return new HostileUpstream(prototypeSwap(world), 'demo_pro_single', (id, body) => {
    if (id !== 'getOverview') return body;
    const daily = (body as { competition: { daily: { rivals: unknown[] }[] } }).competition.daily;
    const day = daily[world.day % Math.max(1, daily.length)];
    if (day && day.rivals.length > 0) day.rivals.splice(world.rival % day.rivals.length, 1);
    return body;
  }).install();
}

/** What a reader sees when a lookup by such a name read an inherited member: a function's source, an object's tag, a figure that is no number. */
export const INHERITED_READ = /\[native code\]|\[object \w+\]|\bNaN\b|\bundefined\b|function \w*\(/;
