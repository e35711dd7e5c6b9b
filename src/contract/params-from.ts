/**
 * Requests that need a value from another operation's answer (the contract
 * table's `paramsFrom`: a topic's id from `GET /topics`, a rival's name from
 * its topics), filled from the answers read before. Discovery of the upstream
 * map and the compatibility check read those operations this way.
 *
 * ```ts
 * const params: Params = {};
 * fillParams(operations.getTopic, params, new Map([['listTopics', topics]]), new Map()); // undefined; params.id = 1101
 * ```
 */
import type { AnyOperation, OperationId } from './operations';
import { valuesAtPath } from './paths';

export type Params = Record<string, string | number>;

/** Every value at a contract path (`topics[].rivals[].name`) of a body on the contract's names, arrays followed; none that is empty. */
export function valuesAt(body: unknown, path: string): unknown[] {
  return valuesAtPath(body, path).filter((value) => value !== null && value !== undefined && value !== '');
}

/**
 * The values `op` needs, from `answers` (bodies on the contract's names), into `params`; why not, when one is missing:
 * its source operation failed (`failed` says how) or has none.
 */
export function fillParams(op: Pick<AnyOperation, 'paramsFrom'>, params: Params, answers: ReadonlyMap<OperationId, unknown>, failed: ReadonlyMap<OperationId, string>): string | undefined {
  for (const [name, source] of Object.entries(op.paramsFrom ?? {})) {
    const from = source.operation as OperationId;
    const why = failed.get(from);
    if (why) return `needs \`${name}\` from ${from} (\`${source.path}\`), which ${why}`;
    const value = valuesAt(answers.get(from), source.path)[0];
    if (typeof value !== 'string' && typeof value !== 'number') return `needs \`${name}\` from ${from} (\`${source.path}\`), which has none`;
    params[name] = value;
  }
  return undefined;
}
