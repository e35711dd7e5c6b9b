/**
 * "House style" (issue 36): another implementation of the spec that keeps
 * every rule it fixes, in a style of its own, built from the demo origin
 * (test/reshape.ts) so its figures are the demo's:
 *
 * - PascalCase keys in a `{Status, Result, Meta}` envelope;
 * - synonyms: `score` as `VisibilityIndex`, `history` as `WeeklyTrend`,
 *   won/lost/held as `Gained`/`Dropped`/`Unchanged` (counts and outcomes),
 *   `rivals` as `Peers`;
 * - topic scores, changes and rival shares as 0-1 fractions (the spec leaves
 *   their unit open);
 * - the market written flat (`MarketId`, `MarketCode`);
 * - vendor-prefixed engine ids (`openai-chatgpt`, `anthropic-claude`, …) and
 *   one extra engine, `xai-grok`, that answered nothing.
 *
 * `HOUSE_MAP` is the right upstream map for it, as a person would write it;
 * the tests break it one entry at a time.
 */
import { ENGINES } from '../src/contract/enums';
import { type OperationId, OPERATION_IDS } from '../src/contract/operations';
import { matchOperation } from '../src/contract/request';
import { contractPaths } from '../src/contract/upstream-map';
import { CASES, changeAt, renameAt, renameFields } from './reshape';
import { zodSide } from '../src/contract/zod-side';

/** The contract's schemas, loaded once for this module (src/contract/zod-side.ts). */
const zs = await zodSide();

type Body = Record<string, unknown>;

export const VENDOR_ENGINES: Record<string, string> = {
  chatgpt: 'openai-chatgpt',
  claude: 'anthropic-claude',
  gemini: 'google-gemini',
  perplexity: 'perplexity-sonar',
  copilot: 'microsoft-copilot',
  google_ai_overviews: 'google-ai-overviews',
};
export const EXTRA_ENGINE = 'xai-grok';

/** Its words for contract fields, by contract path relative to the parent (as a map names them). */
export const HOUSE_WORDS: Partial<Record<OperationId, Record<string, string>>> = {
  getVisibility: { score: 'visibility_index', history: 'weekly_trend' },
  getAnswerHistory: { 'counts.won': 'gained', 'counts.lost': 'dropped', 'counts.held': 'unchanged' },
  listTopics: { 'topics[].rivals': 'peers' },
  getTopic: { 'topic.rivals': 'peers' },
};
export const HOUSE_OUTCOMES: Record<string, string> = { won: 'Gained', lost: 'Dropped', held: 'Unchanged' };
/** Where it writes 0-1 fractions for the contract's percentages. */
export const HOUSE_FRACTIONS: Partial<Record<OperationId, string[]>> = {
  listTopics: ['topics[].score', 'topics[].change', 'topics[].rivals[].share'],
  getTopic: ['topic.score', 'topic.change', 'topic.rivals[].share'],
};

const depth = (path: string) => path.split('.').length;
const fraction = (v: unknown) => (typeof v === 'number' ? Math.round(v * 10) / 1000 : v);

/** A demo body as the house-style service writes it. */
export function houseStyle(body: Body, url: URL): unknown {
  const id = matchOperation(url.pathname)!.op.id;
  let out: unknown = body;
  for (const path of HOUSE_FRACTIONS[id] ?? []) out = changeAt(out, path, fraction);
  if (id === 'getAnswerHistory') out = changeAt(out, 'questions[].outcome', (o) => HOUSE_OUTCOMES[o as string] ?? o);
  if (id === 'getPromptMatrix') {
    const matrix = out as { engines: string[]; prompts: { engines: unknown[] }[] };
    out = {
      ...matrix,
      engines: [...matrix.engines, EXTRA_ENGINE],
      prompts: matrix.prompts.map((p) => ({ ...p, engines: [...p.engines, { engine: EXTRA_ENGINE, state: null, rate: null, position: null, runs: 0 }] })),
    };
  }
  for (const [path, to] of Object.entries(HOUSE_WORDS[id] ?? {}).sort(([a], [b]) => depth(b) - depth(a))) out = renameAt(out, path, to);
  // The market flat, beside the other fields.
  const { market, ...rest } = out as Body;
  if (market && typeof market === 'object') out = { ...rest, market_id: (market as Body).id, market_code: (market as Body).code };
  let text = JSON.stringify(renameFields(out, CASES.pascal));
  for (const engine of ENGINES) text = text.replaceAll(`"${engine}"`, `"${VENDOR_ENGINES[engine]}"`);
  return { Status: 'ok', Result: JSON.parse(text), Meta: { Service: 'house-style', Version: 7 } };
}

/** The contract paths of `id` whose values are engines. */
export const enginePaths = (id: OperationId) => [...contractPaths(zs, id)].filter((p) => p === 'engines[]' || p.endsWith('.engine') || p === 'engine');

/** The right map for the house style, as a person would write it: what the tests break. */
export function houseMap(): { operations: Record<string, { fields: Record<string, string>; convert: Record<string, string>; values: Record<string, Record<string, string>> }> } {
  const operations: ReturnType<typeof houseMap>['operations'] = {};
  const engineValues = Object.fromEntries(Object.entries(VENDOR_ENGINES).map(([ours, theirs]) => [theirs, ours]));
  for (const id of OPERATION_IDS) {
    const paths = contractPaths(zs, id);
    const fields: Record<string, string> = {};
    const convert: Record<string, string> = {};
    const values: Record<string, Record<string, string>> = {};
    if (paths.has('market.id')) Object.assign(fields, { market: '.', 'market.id': 'MarketId', 'market.code': 'MarketCode' });
    for (const [path, to] of Object.entries(HOUSE_WORDS[id] ?? {})) fields[path] = CASES.pascal(to);
    for (const path of HOUSE_FRACTIONS[id] ?? []) convert[path] = 'percent';
    if (id === 'getAnswerHistory') values['questions[].outcome'] = Object.fromEntries(Object.entries(HOUSE_OUTCOMES).map(([ours, theirs]) => [theirs, ours]));
    for (const path of enginePaths(id)) values[path] = engineValues;
    operations[id] = { fields, convert, values };
  }
  return { operations };
}
