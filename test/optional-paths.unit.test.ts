/**
 * Reading a body with some parts optional (src/contract/optional-paths.ts,
 * `checkResponseBody`'s `optional`): only the named paths may be absent or
 * unreadable, and are said to be; any other field still fails naming it.
 * The schema's own checks (`history` is 12 weeks) still hold where a field is
 * given.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { checkResponseBody } from '../src/contract/body';
import { API_BASE } from '../src/contract/operations';
import { absentPaths, withOptionalPaths } from '../src/contract/optional-paths';
import { originTransport } from '../src/origin/transport';
import { KEYS } from './helpers';
import { CASES, renameFields } from './reshape';
import { zodSide } from '../src/contract/zod-side';

/** The contract's zod side: the response schemas the bodies are checked with. */
const zs = await zodSide();

const origin = originTransport(env.DB);

async function body(path: string): Promise<Record<string, unknown>> {
  const response = await origin(new Request(`http://origin.internal${API_BASE}${path}`, { headers: { authorization: `Bearer ${KEYS.pro}` } }));
  return (await response.json()) as Record<string, unknown>;
}

const text = (value: unknown) => JSON.stringify(value);

describe('optional paths', () => {
  it('leave out an absent field and say so; the rest of the body is as the contract says', async () => {
    const { history, ...visibility } = await body('/visibility');
    const read = checkResponseBody(zs, 'getVisibility', text(visibility), undefined, ['history']);
    expect(read).toMatchObject({ ok: true, absent: ['history'] });
    if (read.ok) expect(read.data).toEqual(visibility);
    // Without the path optional, the same body fails naming the field.
    expect(checkResponseBody(zs, 'getVisibility', text(visibility))).toMatchObject({ ok: false, field: 'history' });
  });

  it('leave out an unreadable field as absent: 10 weeks where the contract says 12', async () => {
    const visibility = await body('/visibility');
    const short = { ...visibility, history: (visibility.history as unknown[]).slice(2) };
    expect(checkResponseBody(zs, 'getVisibility', text(short), undefined, ['history'])).toMatchObject({ ok: true, absent: ['history'] });
  });

  it('reach into arrays: a field absent in every item is absent; in some only, it is not said to be', async () => {
    const topics = await body('/topics');
    const items = topics.topics as Record<string, unknown>[];
    const none = { ...topics, topics: items.map(({ rivals, ...t }) => t) };
    expect(checkResponseBody(zs, 'listTopics', text(none), undefined, ['topics[].rivals'])).toMatchObject({ ok: true, absent: ['topics[].rivals'] });
    const some = { ...topics, topics: items.map(({ rivals, ...t }, i) => (i === 0 ? t : { ...t, rivals })) };
    expect(checkResponseBody(zs, 'listTopics', text(some), undefined, ['topics[].rivals'])).toMatchObject({ ok: true, absent: [] });
  });

  it('keep every other field required, and the error names it', async () => {
    const { score, history, ...visibility } = await body('/visibility');
    const read = checkResponseBody(zs, 'getVisibility', text(visibility), undefined, ['history']);
    expect(read).toMatchObject({ ok: false, field: 'score' });
  });

  it('are found under another case convention before they are said to be absent', async () => {
    const visibility = await body('/visibility');
    const read = checkResponseBody(zs, 'getVisibility', text(renameFields(visibility, CASES.camel)), undefined, ['history', 'answered_runs']);
    expect(read).toMatchObject({ ok: true, absent: [] });
    if (read.ok) expect(read.data).toEqual(visibility);
  });

  it("keep the schema's own wrappers and checks along the path", () => {
    const schema = withOptionalPaths(zs.response('getTopic'), ['questions[].engines[].latest', 'history']);
    expect(schema.safeParse({}).success).toBe(false);
    expect(absentPaths({ questions: [{ engines: [{ latest: null }] }] }, ['questions[].engines[].latest'])).toEqual([]);
    expect(absentPaths({ questions: [{ engines: [{}] }] }, ['questions[].engines[].latest'])).toEqual(['questions[].engines[].latest']);
    expect(absentPaths({ questions: [] }, ['questions[].engines[].latest'])).toEqual([]);
    expect(() => withOptionalPaths(zs.response('getVisibility'), ['scroe'])).toThrow(/scroe/);
  });
});
