/**
 * The probes of `probes.ts` read: once every operation is read and proposed,
 * each operation whose echo, window, market or limited list is not settled is
 * read again as a prediction asks, the key that took what it predicts is
 * proven, and the body is proposed again with it. Each probe says in the
 * report what it settled, or that it settled nothing and why.
 */
import type { ZodSide } from '../contract/zod-side';
import { hasEntries } from '../contract/body';
import { conformBody } from '../contract/conform';
import type { Params } from '../contract/params-from';
import { type AnyOperation, type OperationId, operations } from '../contract/operations';
import { contractPaths } from '../contract/upstream-map';
import type { OperationMap } from '../contract/schemas/upstream-map';
import { valueAtPath } from '../contract/paths';
import { type Evidence, type OperationProposal, proposeOperation } from './propose';
import { echoesOf, echoPrediction, limitPrediction, marketPrediction, type Prediction, previousWindowPrediction, probeValue, provenKey, windowPrediction } from './probes';
import type { DiscoveryReport } from './report';

/** What discovery knows for one read when it proposes it (`joinAcross`'s last round): a probe's answer is proposed with it. */
export type EvidenceFor = (id: OperationId, params: Params) => Evidence;
type Entries = Map<OperationId, DiscoveryReport['operations'][string]>;

/** One body proposed with `evidence`, its entry and its part of the map replaced. */
export function propose(
  zs: ZodSide,
  id: OperationId,
  body: Record<string, unknown>,
  params: Params,
  threshold: number,
  evidence: Evidence,
  report: DiscoveryReport,
  entries: Entries,
): OperationProposal {
  const proposal = proposeOperation(zs, id, body, threshold, evidence);
  const entry = entries.get(id);
  entries.set(id, { status: 200, params, cache: entry && 'cache' in entry ? (entry.cache ?? null) : null, ...proposal.report });
  if (hasEntries(proposal.map)) report.map.operations[id] = proposal.map;
  else delete report.map.operations[id];
  return proposal;
}

/** Whether the entry leaves `path` to settle: asked (placed below the threshold, or two ways), or held by no key placed. */
function unsettled(entry: DiscoveryReport['operations'][string] | OperationProposal['report'] | undefined, path: string): boolean {
  if (!entry || !('fields' in entry)) return false;
  // Asked, or unplaced: a path the answer does not hold (a part the plan leaves out) is nothing to probe.
  return entry.unplaced.includes(path) || entry.to_confirm.some((c) => c.path === path || c.with?.includes(path));
}

/** The keys an entry names for `path`: the one placed and every candidate asked. */
const candidatesIn = (entry: OperationProposal['report'], path: string) =>
  [entry.fields[path]?.from, ...entry.to_confirm.filter((c) => c.path === path || c.with?.includes(path)).flatMap((c) => c.candidates.map((x) => x.from))].filter((k): k is string => k !== undefined);

export interface ProbeInputs {
  zs: ZodSide;
  bodies: ReadonlyMap<OperationId, { body: Record<string, unknown>; params: Params }>;
  threshold: number;
  report: DiscoveryReport;
  entries: Entries;
  evidenceFor: EvidenceFor;
  /** One read within the key's budget; undefined when the budget stopped discovery. */
  paced: (id: OperationId, params: Params) => Promise<{ status: number; body?: unknown } | undefined>;
  /** The fixed windows end today (the caller's clock seam). */
  today: string;
  /** The key's markets as /markets lists them, on the contract's names. */
  markets: readonly { id: unknown; code: unknown }[];
}

/** The predictions worth a read for one operation: those with a path its entry leaves to settle. */
function predictionsFor(id: OperationId, read: unknown, params: Params, paths: ReadonlySet<string>, inputs: ProbeInputs): Prediction[] {
  const op = operations[id] as unknown as AnyOperation;
  const echoes = echoesOf(id, paths).flatMap((echo) => {
    const asked = probeValue(echo, read);
    return asked === undefined ? [] : [echoPrediction(id, echo, asked)];
  });
  const window = windowPrediction(op.window, inputs.today);
  const market = op.scope === 'account' ? undefined : marketPrediction(inputs.markets, read);
  const before = previousWindowPrediction(op.window, params as { days?: number; from?: string; to?: string }, inputs.today, paths);
  const all = [...echoes, window, before, market, limitPrediction(id, read)].filter((p): p is Prediction => p !== undefined);
  const entry = inputs.entries.get(id);
  return all.filter((p) => p.expect.some((e) => paths.has(e.path) && unsettled(entry, e.path)));
}

/** Every operation's probes read, in the order bodies were read; the body proposed again with what they proved. */
export async function probeReads(inputs: ProbeInputs): Promise<void> {
  const { zs, bodies, threshold, report, entries, evidenceFor, paced } = inputs;
  for (const [id, { body, params }] of bodies) {
    const schema = zs.response(id);
    const first = proposeOperation(zs, id, body, threshold, evidenceFor(id, params));
    const probed = new Map<string, { key: string; seen: unknown[] }>();
    for (const prediction of predictionsFor(id, conformBody(schema, body, first.guess), params, contractPaths(zs, id), inputs)) {
      const asked = { ...params, ...prediction.params };
      const answer = await paced(id, asked);
      if (!answer) return;
      const after = answer.body;
      const settled: string[] = [];
      if (answer.status === 200 && typeof after === 'object' && after !== null && !Array.isArray(after)) {
        const probe = proposeOperation(zs, id, after as Record<string, unknown>, threshold, evidenceFor(id, asked));
        for (const expected of prediction.expect) {
          const entry = entries.get(id);
          if (!unsettled(entry, expected.path)) continue;
          /** The source read with `key` at the path: on the contract's names, and as the service wrote it. */
          const reading = (source: unknown, guess: OperationMap) => (key: string) => {
            const fields = { ...guess.fields, [expected.path]: key };
            const { [expected.path]: _, ...convert } = guess.convert ?? {};
            return {
              value: valueAtPath(conformBody(schema, source, { ...guess, fields }), expected.path),
              raw: valueAtPath(conformBody(schema, source, { ...guess, fields, convert }), expected.path),
            };
          };
          const candidates = [...candidatesIn(probe.report, expected.path), ...(entry && 'fields' in entry ? candidatesIn(entry, expected.path) : [])];
          // A figure of the window before: the probe's own figure of that window, where the probe places it surely.
          const figure = (path: string) =>
            (probe.report.fields[path]?.confidence ?? 0) >= threshold && !unsettled(probe.report, path) ? valueAtPath(conformBody(schema, after, probe.map), path) : undefined;
          const key =
            'sameAs' in expected
              ? sameAsKey(candidates, reading(body, first.guess), figure(expected.sameAs))
              : provenKey(expected, candidates, reading(body, probe.guess), reading(after, probe.guess));
          if (key === undefined) continue;
          probed.set(expected.path, { key, seen: 'value' in expected ? [reading(after, probe.guess)(key).raw] : [] });
          settled.push(`\`${expected.path}\` is \`${key}\``);
        }
      }
      const why = answer.status === 200 ? 'no one field took what it predicts' : `it answered ${answer.status}`;
      (report.probes ??= []).push({ purpose: prediction.purpose, reads: 1, settled: settled.length > 0 ? `${settled.join(', ')}: the only field that took what it predicts` : `nothing: ${why}` });
    }
    if (probed.size > 0) propose(zs, id, body, params, threshold, { ...evidenceFor(id, params), probed }, report, entries);
  }
}

/**
 * Of the keys the first answer may hold a figure of the window before in, the one whose value is `figure`, the
 * probe's for that window (placed surely there). None where the figure is 0 (a count of nothing is every empty
 * count's) or two keys hold it.
 */
function sameAsKey(candidates: readonly string[], first: (key: string) => { value: unknown }, figure: unknown): string | undefined {
  if (typeof figure !== 'number' || figure === 0) return undefined;
  const proven = [...new Set(candidates)].filter((key) => first(key).value === figure);
  return proven.length === 1 ? proven[0] : undefined;
}
