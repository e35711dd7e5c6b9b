/**
 * An enumeration's values in one body that are not the contract's: mapped when the spelling rules, a name or the
 * evidence of every operation (`values.ts`) says what they are; carried when the enumeration is open; asked otherwise,
 * with the contract's values nothing else stands for.
 */
import { valueCandidates } from './names';
import type { Candidate, ValueProposal } from './report';
import type { Expected } from './shapes';
import { enumKey } from './values';
import type { Walk } from './walk';

/** A closed enumeration's value like none of the contract's: the one value left for it, or one of several. */
const ELIMINATION_ONE = 0.4;
const ELIMINATION_MANY = 0.2;

/** An enumeration's upstream values that are not the contract's: mapped when sure, carried when open, asked otherwise. */
export function proposeValues(expected: Extract<Expected, { kind: 'enum' }>, values: readonly unknown[], path: string, walk: Walk): void {
  const distinct = [...new Set(values.filter((v): v is string => typeof v === 'string'))];
  const foreign = distinct.filter((v) => !expected.values.includes(v));
  const claimed = new Set(distinct.filter((v) => expected.values.includes(v)));
  const asked: { value: string; candidates: Candidate[] }[] = [];
  const hints = walk.hints.get(enumKey(expected.values));
  for (const value of foreign) {
    const candidates: Candidate[] = valueCandidates(expected.values, value, expected.open);
    const [best, second] = candidates;
    const hint = expected.open ? undefined : hints?.get(value);
    if (hint && !(best && best.confidence >= walk.threshold && best.to !== hint.to)) {
      walk.mapValue(path, value, hint.to, true);
      (walk.values[path] ??= {})[value] = { to: hint.to, confidence: hint.confidence, by: hint.by };
      claimed.add(hint.to);
    } else if (best && best.confidence >= walk.threshold && second?.confidence !== best.confidence) {
      walk.mapValue(path, value, best.to!, true);
      (walk.values[path] ??= {})[value] = { to: best.to!, confidence: best.confidence, by: best.by as ValueProposal['by'] };
      claimed.add(best.to!);
    } else if (expected.open && !best) (walk.carried[path] ??= []).push(value);
    else asked.push({ value, candidates });
  }
  // Nothing alike in a closed enumeration: the contract's values no other upstream value stands for are what it may be.
  const unclaimed = expected.values.filter((v) => !claimed.has(v));
  for (const { value, candidates } of asked) {
    const offered =
      candidates.length > 0 ? candidates : unclaimed.map((to): Candidate => ({ to, confidence: unclaimed.length === 1 && asked.length === 1 ? ELIMINATION_ONE : ELIMINATION_MANY, by: 'elimination' }));
    if (offered[0]) walk.mapValue(path, value, offered[0].to!, false);
    walk.toConfirm.push({
      path,
      value,
      reason: candidates[0] ? `\`${value}\` is only like the contract's \`${candidates[0].to}\`` : `the contract has no value like \`${value}\` (${expected.values.join(', ')})`,
      candidates: offered.slice(0, 3),
    });
  }
}
