/**
 * The spec's relations as evidence (src/contract/plausibility.ts): of a
 * field's candidates, the one whose reading keeps a rule that fixes the field
 * is taken (`settleByEvidence`); a reading a rule fixes decides a unit
 * (`rulesKept`); a field placed by a guess is confirmed by the rule or, breaking
 * it, left for a person (`confirmByRules`).
 */
import type * as z from 'zod';
import { conformBody } from '../contract/conform';
import type { OperationId } from '../contract/operations';
import { RULES, type RuleContext, violationsOf } from '../contract/plausibility';
import { at, DAY, dayOf, isNum } from '../contract/plausibility-words';
import type { Conversion } from '../contract/upstream-map';
import type { Candidate, Placement, ToConfirm } from './report';
import { AMBIGUOUS, expectedOf, formKeyOf, takesUnit } from './shapes';
import { atOrUnder, schemaAtPath, valuesAtPath } from '../contract/paths';
import type { Json, Walk } from './walk';

/** A candidate settled by the data: as sure as a name guess, and surer than any guess by type. */
export const EVIDENCE = 0.9;

/** Whether a rule's field is `path` or lies under it (`period.to` under `period`): a rule reading it reads the field. */
/** The rules that read `path` of `id`'s body. */
const reading = (id: OperationId, path: string) => RULES.filter((rule) => rule.reads[id]?.some((field) => atOrUnder(field, path)));

/**
 * Questions the data answers (src/contract/plausibility.ts): of a field's candidates, the one whose reading keeps a
 * rule that pins the field (the score that is naming over answered) while the others break it, or the only one,
 * is taken; of an object's, the one the rules reading inside it judge and keep (the window before the period). Never the first of several that keep it: ties are broken by evidence, never by order.
 */
export function settleByEvidence(id: OperationId, schema: z.ZodType, body: Json, walk: Walk): void {
  settleQuestions(
    schema,
    body,
    walk,
    (item, read) => {
      if (item.path.includes('[]')) return false;
      const open = (field: string) => walk.toConfirm.some((other) => other !== item && other.value === undefined && atOrUnder(field, other.path));
      // An object (the window before, the counts) by the rules that read inside it; a figure by those that fix it.
      return expectedOf(schemaAtPath(schema, item.path)).kind === 'object' ? keepsRulesWithin(id, read, item.path, walk.context, open) : keepsPinningRules(id, read, item.path, open, walk.context);
    },
    (item) => !item.path.includes('[]') && reading(id, item.path).length > 0,
  );
}

/**
 * Of each open question of a field (not of a value, not the envelope), the one candidate whose reading of the body
 * `keeps` (judged on the contract's names, with every other guess) is taken, as evidence; none or several, it stays.
 */
export function settleQuestions(
  schema: z.ZodType,
  body: Json,
  walk: Walk,
  keeps: (item: ToConfirm, read: unknown) => boolean,
  /** Whether the evidence can say anything of a question at all: one it cannot is not read under each candidate. */
  applies: (item: ToConfirm) => boolean = () => true,
): void {
  for (const item of [...walk.toConfirm]) {
    if (item.value !== undefined || item.path === '' || !walk.toConfirm.includes(item) || !applies(item)) continue;
    // A candidate that is only a reading (`convert`) reads the field the guess reads.
    const name = item.path.split('.').at(-1)!;
    const fromOf = (candidate: Candidate) => candidate.from ?? walk.guess.fields[item.path] ?? name;
    const options = new Map<string, { from: string; convert: Conversion | undefined }>();
    for (const candidate of item.candidates)
      for (const convert of readingsOf(schema, item.path, candidate.convert)) options.set(`${fromOf(candidate)} ${convert}`, { from: fromOf(candidate), convert });
    const keeping = [...options.values()].filter(({ from, convert }) => {
      const map = { ...walk.guess, fields: { ...walk.guess.fields, [item.path]: from }, convert: { ...walk.guess.convert } };
      if (convert) map.convert[item.path] = convert;
      else delete map.convert[item.path];
      return keeps(item, conformBody(schema, body, map));
    });
    if (keeping.length !== 1) continue;
    const chosen = keeping[0]!;
    walk.toConfirm.splice(walk.toConfirm.indexOf(item), 1);
    walk.mapField(item.path, name, chosen.from, chosen.convert, true);
    if (!chosen.convert) delete walk.guess.convert[item.path];
    walk.fields[item.path] = { from: chosen.from, confidence: EVIDENCE, by: 'evidence', ...(chosen.convert ? { convert: chosen.convert } : {}) };
  }
}

/**
 * The readings a candidate is judged in: the one it offered, or, offered as it is for a percentage or a change, also
 * as a share from 0 to 1: a guess by type offers no unit, and a rule that calls its values shares says how to read
 * it, not that it is another field.
 */
function readingsOf(schema: z.ZodType, path: string, offered: Conversion | undefined): (Conversion | undefined)[] {
  if (offered) return [offered];
  return takesUnit(schema, path) ? [undefined, 'percent'] : [undefined];
}

/** Assignments tried per group of questions: a group of more fields or candidates is left to a person. */
const MAX_ASSIGNMENTS = 120;

/**
 * Questions of one object that share their candidates (two counts, each of which may be either field; or one field
 * and two candidates): every way to give each field a different candidate, read as it offered, is read, and the one
 * way that breaks no rule reading those fields, where every other way breaks one, is taken (a question's engines
 * naming the brand now and before, told apart by its outcome; a rate, by its runs). Within lists too, where a rule
 * reads every item.
 */
export function settleGroups(id: OperationId, schema: z.ZodType, body: Json, walk: Walk): void {
  const openNow = () => walk.toConfirm.filter((item) => item.value === undefined && item.path !== '' && item.candidates.length > 0 && item.candidates.every((c) => c.from !== undefined));
  for (const parent of new Set(openNow().map((item) => parentOf(item.path))))
    settleGroup(
      id,
      schema,
      body,
      walk,
      openNow().filter((item) => parentOf(item.path) === parent),
    );
  // Questions of several objects one rule reads together (a total beside its parts, `total_citations` and
  // `by_class.own`), each judging the other's guess, so neither group alone is evidence: read as one group.
  for (const rule of RULES) {
    const fields = rule.reads[id];
    if (!fields) continue;
    const group = openNow().filter((item) => fields.some((field) => atOrUnder(field, item.path)));
    if (new Set(group.map((item) => parentOf(item.path))).size > 1) settleGroup(id, schema, body, walk, group);
  }
}

const parentOf = (path: string) => path.slice(0, path.lastIndexOf('.') + 1);
/** A candidate of a group's question, named with its parent: two objects' keys of one name are not one key. */
const optionOf = (item: ToConfirm, from: string) => `${parentOf(item.path)}\u0000${from}`;
const fromOf = (option: string) => option.slice(option.indexOf('\u0000') + 1);

/** One group of questions (`settleGroups`): the one way of giving them their candidates that breaks no rule, where every other way breaks one. */
function settleGroup(id: OperationId, schema: z.ZodType, body: Json, walk: Walk, group: ToConfirm[]): void {
  const parents = new Set(group.map((item) => parentOf(item.path)));
  const options = [...new Set(group.flatMap((item) => item.candidates.map((c) => optionOf(item, c.from!))))];
  if (options.length < group.length) return;
  // A rule that also reads a field still in question outside the group judges one guess by another: no evidence.
  // The group's own object written flat (`"period": "."`, asked) is read as the group is: one way keeping the rules settles both.
  const flatParent =
    parents.size !== 1 ? undefined : walk.toConfirm.find((other) => other.value === undefined && other.path !== '' && parents.has(`${other.path}.`) && other.candidates.every((c) => c.from === '.'));
  const parent = [...parents][0]!;
  const inGroup = (field: string) => group.some((item) => atOrUnder(field, item.path));
  const doubted = (field: string) => walk.toConfirm.some((other) => !group.includes(other) && other !== flatParent && other.value === undefined && other.path !== '' && atOrUnder(field, other.path));
  const rules = RULES.filter((rule) => group.some((item) => reading(id, item.path).includes(rule)) && !rule.reads[id]!.some((field) => !inGroup(field) && doubted(field)));
  if (rules.length === 0) return;
  const readFields = [...new Set(rules.flatMap((rule) => rule.reads[id]!.filter((field) => group.some((item) => atOrUnder(field, item.path)))))];
  // Each field may be any candidate offered to a field of its form in its object (two dates, each of which may be
  // either; never a count for a date): they were offered for that form.
  const formOfItem = (item: ToConfirm) => `${parentOf(item.path)} ${formKeyOf(schemaAtPath(schema, item.path))}`;
  const alike = group.map((item) => group.filter((other) => formOfItem(other) === formOfItem(item)));
  // A candidate's reading (`date`, `basis-points`) is the field's where it offered it, else its form's for it.
  const convertOf = (i: number, from: string) => (group[i]!.candidates.find((c) => c.from === from) ?? alike[i]!.flatMap((item) => item.candidates).find((c) => c.from === from))?.convert;
  // Each way read in every reading its fields may take (a percentage offered as it is, also as a share).
  const slots = alike.map((items) => [...new Set(items.flatMap((item) => item.candidates.map((c) => optionOf(item, c.from!))))]);
  const ways = assignments(slots)
    .map((way) => way.map(fromOf))
    .flatMap((way) => readingWays(group.map((item, i) => readingsOf(schema, item.path, convertOf(i, way[i]!)))).map((converts) => ({ way, converts })));
  if (ways.length < 2 || ways.length > MAX_ASSIGNMENTS) return;
  const reads: unknown[] = [];
  const broken = ways.map(({ way, converts }) => {
    const map = { ...walk.guess, fields: { ...walk.guess.fields }, convert: { ...walk.guess.convert } };
    group.forEach((item, i) => {
      map.fields[item.path] = way[i]!;
      const convert = converts[i];
      if (convert) map.convert[item.path] = convert;
      else delete map.convert[item.path];
    });
    const read = conformBody(schema, body, map);
    reads.push(read);
    // A way that leaves a question with nothing the rules read is not judged by them: absence is no evidence.
    const judges = (item: ToConfirm) => readFields.some((field) => atOrUnder(field, item.path) && valuesAtPath(read, field).some((v) => v !== undefined));
    if (!group.filter((item) => readFields.some((field) => atOrUnder(field, item.path))).every(judges)) return undefined;
    return violationsOf(id, read, walk.context)
      .filter((v) => rules.some((rule) => rule.id === v.rule))
      .map((v) => `${v.rule} ${v.fields.join(' ')}`);
  });
  // A finding every way breaks is another field's doing (a question elsewhere): it tells none of them apart.
  const judged = broken.filter((found): found is string[] => found !== undefined);
  if (judged.length === 0) return;
  const background = judged.length < 2 ? [] : judged.reduce((common, found) => common.filter((k) => found.includes(k)));
  const keeping = ways.filter((_, i) => broken[i] !== undefined && broken[i]!.every((k) => background.includes(k)));
  if (keeping.length === 0) return;
  // Only a field a rule reads and that way keeps is settled: one only broken rules read was what the others left over.
  // A rule holds only where it judged: every field it reads has a value (one lacking its list, the engines, says nothing).
  const kept = ways.indexOf(keeping[0]!);
  const judging = (rule: (typeof rules)[number]) => rule.reads[id]!.every((field) => valuesAtPath(reads[kept], field).some((v) => v !== undefined));
  const holding = rules.filter((rule) => !broken[kept]!.some((k) => k.startsWith(`${rule.id} `)) && judging(rule));
  const proven = (item: ToConfirm) => holding.some((rule) => rule.reads[id]!.some((field) => atOrUnder(field, item.path)));
  // Several ways kept: a field they all read alike is settled (a signal's value, whichever way its two texts go), when
  // a way judged reading it otherwise broke a rule: the rules told its readings apart, rather than said nothing of it.
  const sameAt = (i: number, a: (typeof ways)[number], b: (typeof ways)[number]) => a.way[i] === b.way[i] && a.converts[i] === b.converts[i];
  const alikeIn = (i: number) =>
    keeping.length === 1 || (keeping.every((k) => sameAt(i, k, keeping[0]!)) && ways.some((w, j) => broken[j] !== undefined && !keeping.includes(w) && !sameAt(i, w, keeping[0]!)));
  group.forEach((item, i) => {
    if (!proven(item) || !alikeIn(i)) return;
    const from = keeping[0]!.way[i]!;
    const convert = keeping[0]!.converts[i];
    walk.toConfirm.splice(walk.toConfirm.indexOf(item), 1);
    if (!convert) delete walk.guess.convert[item.path];
    walk.mapField(item.path, item.path.split('.').at(-1)!, from, convert, true);
    walk.fields[item.path] = { from, confidence: EVIDENCE, by: 'evidence', ...(convert ? { convert } : {}) };
  });
  if (flatParent && !walk.toConfirm.some((other) => other.path.startsWith(parent)) && !walk.unplaced.some((u) => u.startsWith(parent))) {
    walk.toConfirm.splice(walk.toConfirm.indexOf(flatParent), 1);
    walk.mapField(flatParent.path, flatParent.path.split('.').at(-1)!, '.', undefined, true);
    walk.fields[flatParent.path] = { from: '.', confidence: EVIDENCE, by: 'evidence' };
  }
}

/** Every way to pick one reading per field. */
function readingWays(slots: (Conversion | undefined)[][], taken: (Conversion | undefined)[] = []): (Conversion | undefined)[][] {
  if (taken.length === slots.length) return [taken];
  return slots[taken.length]!.flatMap((reading) => readingWays(slots, [...taken, reading]));
}

/** Every way to pick one option per slot, no option twice. */
function assignments(slots: string[][], taken: string[] = []): string[][] {
  if (taken.length === slots.length) return [taken];
  const ways: string[][] = [];
  for (const option of slots[taken.length]!) if (!taken.includes(option)) for (const way of assignments(slots, [...taken, option])) if (ways.push(way) > MAX_ASSIGNMENTS) return ways;
  return ways;
}

/**
 * What the rules that fix `path` say of it read so (its guess, converted or not): `true` when they hold and would
 * break were it far off (evidence), `false` when one breaks, undefined when none fixes it or none can tell.
 */
export function rulesKept(id: OperationId, schema: z.ZodType, body: Json, walk: Walk, path: string, convert: Conversion | undefined, from?: string): boolean | undefined {
  const rules = RULES.filter((rule) => rule.reads[id] && rule.pins?.includes(path));
  if (rules.length === 0) return undefined;
  const map = { ...walk.guess, fields: from === undefined ? walk.guess.fields : { ...walk.guess.fields, [path]: from }, convert: { ...walk.guess.convert } };
  if (convert) map.convert[path] = convert;
  else delete map.convert[path];
  const read = conformBody(schema, body, map);
  if (violationsOf(id, read, walk.context).some((v) => rules.some((rule) => rule.id === v.rule) && v.fields.includes(path))) return false;
  return keepsPinningRules(id, read, path, undefined, walk.context) ? true : undefined;
}

/** Ways of placing a field that the rules may confirm or overturn: every way but a name. */
export const CONFIRMABLE: ReadonlySet<Placement['by']> = new Set(['form', 'type', 'structure', 'abbreviation', 'vocabulary', 'join', 'resemblance']);

/**
 * A field placed by its form (or another guess) that a rule fixes: kept by the rule, it is placed by evidence; broken,
 * it leaves the map for a person, with the rule's words. A guess never stands against the spec's relations.
 */
export function confirmByRules(id: OperationId, schema: z.ZodType, body: Json, walk: Walk): void {
  // Read with every guess: a guess that breaks a rule with a field placed by form puts both in doubt.
  const read = conformBody(schema, body, walk.guess);
  const broken = violationsOf(id, read, walk.context);
  for (const [path, placed] of Object.entries(walk.fields)) {
    if (!CONFIRMABLE.has(placed.by)) continue;
    const rules = reading(id, path);
    if (rules.length === 0) continue;
    // A rule broken by a field still in question (or one of its values) blames that question, not the field that holds it.
    const doubted = (field: string) => walk.toConfirm.some((item) => (item.value !== undefined || item.path !== path) && atOrUnder(field, item.path));
    const against = broken.find((v) => rules.some((rule) => rule.id === v.rule) && v.fields.some((field) => atOrUnder(field, path)) && !v.fields.some(doubted));
    if (against) {
      delete walk.fields[path];
      delete walk.sure.fields[path];
      delete walk.sure.convert[path];
      walk.toConfirm.push({
        path,
        reason: `read from \`${placed.from}\` it breaks a rule: ${against.message}`,
        candidates: [{ from: placed.from, ...(placed.convert ? { convert: placed.convert } : {}), confidence: AMBIGUOUS, by: placed.by }],
      });
    } else if (rules.some((rule) => rule.pins?.includes(path)) && keepsPinningRules(id, read, path, undefined, walk.context)) walk.fields[path] = { ...placed, confidence: EVIDENCE, by: 'evidence' };
  }
}

/**
 * Whether `body` is evidence for its value at `path` (a field without `[]`): a rule that pins the field holds, and
 * would break were the value far off (so it did judge it, rather than lack what it needs). A rule that also reads a
 * field still `open` (in question itself) is no evidence: it would judge one guess by another.
 */
export function keepsPinningRules(operation: OperationId, body: unknown, path: string, open: (field: string) => boolean = () => false, context: RuleContext = {}): boolean {
  const pinning = RULES.filter((rule) => rule.reads[operation] && rule.pins?.includes(path) && !rule.reads[operation]!.some((field) => field !== path && open(field)));
  const broken = (read: unknown) => pinning.filter((rule) => rule.check(read, rule.reads[operation]!, operation, context).length > 0).length;
  if (pinning.length === 0 || path.includes('[]') || broken(body) > 0) return false;
  const value = at(body, path);
  if (!isNum(value)) return false;
  const planted = structuredClone(body) as Record<string, unknown>;
  const steps = path.split('.');
  let holder: Record<string, unknown> = planted;
  for (const step of steps.slice(0, -1)) holder = holder[step] as Record<string, unknown>;
  holder[steps.at(-1)!] = value + 37;
  return broken(planted) > 0;
}

/**
 * Whether `body` is evidence for the object at `path` (no `[]`): the rules reading fields inside it hold, and one
 * breaks once its figures are moved (numbers by 37, dates by 37 days), so they did judge it. Rules that also read an
 * `open` field outside it say nothing.
 */
export function keepsRulesWithin(operation: OperationId, body: unknown, path: string, context: RuleContext, open: (field: string) => boolean = () => false): boolean {
  const inside = (field: string) => field.startsWith(`${path}.`) || field.startsWith(`${path}[]`);
  const judging = RULES.filter((rule) => rule.reads[operation]?.some(inside) && !rule.reads[operation]!.some((field) => !inside(field) && open(field)));
  const broken = (read: unknown) => judging.filter((rule) => rule.check(read, rule.reads[operation]!, operation, context).length > 0).length;
  if (judging.length === 0 || path.includes('[]') || broken(body) > 0) return false;
  const planted = structuredClone(body) as Record<string, unknown>;
  const steps = path.split('.');
  let holder: Record<string, unknown> = planted;
  for (const step of steps.slice(0, -1)) holder = holder[step] as Record<string, unknown>;
  if (typeof holder?.[steps.at(-1)!] !== 'object' || holder[steps.at(-1)!] === null) return false;
  holder[steps.at(-1)!] = moved(holder[steps.at(-1)!]);
  return broken(planted) > 0;
}

/** Every number of `value` plus 37, every date 37 days on. */
function moved(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(moved);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, moved(v)]));
  if (isNum(value)) return value + 37;
  if (!Number.isNaN(dayOf(value))) return new Date(dayOf(value) + 37 * DAY).toISOString().slice(0, 10);
  return value;
}
