/**
 * Readers of a Worker's environment: a binding is an object, a secret a
 * non-empty string, and a var declared as "" in wrangler.toml means unset.
 * Plain functions, not zod: the env is read at an isolate's first request,
 * and zod's first parse cost more of that request than anything else.
 */

/** A var or binding refused: `varName` says which, `message` why, worded to follow its name ("UPSTREAM_URL must be ..."). */
export class EnvVarError extends Error {
  override readonly name = 'EnvVarError';
  constructor(
    readonly varName: string,
    readonly problem: string,
  ) {
    super(`${varName} ${problem}`);
  }
}

/** Reads one var or binding: its value as the Worker uses it, or a `VarProblem`. */
export type Reader<T> = (value: unknown) => T;

class VarProblem extends Error {}
/** Refuses the value being read; `readVars` names the var. */
export const refuse = (problem: string): never => {
  throw new VarProblem(problem);
};

/** Reads each var with its reader, in order: the first refused is an `EnvVarError` naming it. */
export function readVars<R extends Record<string, Reader<unknown>>>(env: object, readers: R): { [K in keyof R]: ReturnType<R[K]> } {
  const out: Record<string, unknown> = {};
  for (const name in readers) {
    try {
      out[name] = readers[name]!((env as Record<string, unknown>)[name]);
    } catch (error) {
      throw error instanceof VarProblem ? new EnvVarError(name, error.message) : error;
    }
  }
  return out as { [K in keyof R]: ReturnType<R[K]> };
}

const textOf = (value: unknown): string | undefined => (value === undefined || typeof value === 'string' ? value : refuse('must be text'));

/** A secret the deployment must have: `wrangler secret put NAME`, or `.dev.vars` locally. */
export const secret: Reader<string> = (value) => (typeof value === 'string' && value !== '' ? value : refuse('must be set'));
export const binding: Reader<object> = (value) => (typeof value === 'object' && value !== null ? value : refuse('binding missing'));
/** A binding only some features need: absent turns them off. */
export const optionalBinding: Reader<object | undefined> = (value) => (value === undefined ? undefined : binding(value));
/**
 * A secret only some features need: unset (or empty) turns them off. Never
 * trimmed: a key is used as given.
 */
export const optionalSecret: Reader<string | undefined> = (value) => {
  const text = textOf(value);
  return text?.trim() ? text : undefined;
};
/** A var that is empty when unset. */
export const optionalText: Reader<string | undefined> = (value) => textOf(value)?.trim() || undefined;
/** Seconds or milliseconds written as digits; empty means the default. */
export const optionalCount: Reader<number | undefined> = (value) => {
  const text = optionalText(value);
  return text === undefined ? undefined : /^\d+$/.test(text) ? Number(text) : refuse('must be a whole number');
};
/** An http(s) URL, or unset. */
export const optionalHttpUrl =
  (problem: string): Reader<string | undefined> =>
  (value) => {
    const text = optionalText(value);
    if (text === undefined) return undefined;
    let protocol: string;
    try {
      protocol = new URL(text).protocol;
    } catch {
      return refuse(problem);
    }
    return protocol === 'http:' || protocol === 'https:' ? text.replace(/[\t\n\r]/g, '') : refuse(problem);
  };
/** A comma-separated list; empty when unset. */
export const optionalList: Reader<string[]> = (value) =>
  optionalText(value)
    ?.split(',')
    .map((item) => item.trim())
    .filter(Boolean) ?? [];
