/**
 * What goes into the stored map: only what is proven. A placement is relative to the upstream object its parent was
 * read from, so it is right only if that object is: one under an object or list still in question, or under an
 * envelope in question, waits in the guess until a person answers the question above it.
 */
import type { Walk } from './walk';

/** The contract objects and lists a path lies inside: `a[].b.c` inside `a` and `a[].b`. */
function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < path.length; i++) {
    if (path[i] === '.') out.push(path.slice(0, i).replace(/\[\]$/, ''));
    else if (path.startsWith('[]', i) && i > 0) out.push(path.slice(0, i));
  }
  return [...new Set(out)].filter((at) => at !== path);
}

/**
 * Only what is proven goes into the map: a placement relative to an object or list that is itself a question (or
 * an envelope in question) is right only if that guess is, so it stays in the guess until the person answers.
 */
export function keepProven(walk: Walk): void {
  const unsureEnvelope = walk.guess.envelope !== undefined && walk.sure.envelope === undefined;
  const proven = (path: string) => !unsureEnvelope && ancestorsOf(path).every((at) => walk.fields[at] !== undefined);
  for (const part of [walk.sure.fields, walk.sure.convert, walk.sure.values, walk.sure.keyed ?? {}, walk.sure.columns ?? {}])
    for (const path of Object.keys(part)) if (!proven(path)) delete part[path];
}
