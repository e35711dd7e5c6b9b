/**
 * Bodies of another implementation of the spec, read with no configuration:
 * every operation's example body from our origin, respelled in camelCase,
 * PascalCase and kebab-case at every depth and wrapped in an envelope, reads
 * as exactly the same typed data as the original.
 */
import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { checkResponseBody } from '../src/contract/body';
import { conformBody } from '../src/contract/conform';
import { API_BASE, examplePath, operationList, operations } from '../src/contract/operations';
import { originTransport } from '../src/origin/transport';
import { KEYS } from './helpers';
import { CASES, type CaseName, envelope, renameFields } from './reshape';

const origin = originTransport(env.DB);

async function exampleBody(path: string): Promise<Record<string, unknown>> {
  const response = await origin(new Request(`http://origin.internal${API_BASE}${path}`, { headers: { authorization: `Bearer ${KEYS.pro}` } }));
  expect(response.status, path).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe.each(operationList)('$id', (op) => {
  it('reads its body in every case convention and in an envelope as the body itself', async () => {
    const body = await exampleBody(examplePath(op));
    const own = checkResponseBody(op.id, JSON.stringify(body));
    expect(own.ok).toBe(true);
    for (const name of Object.keys(CASES) as CaseName[]) {
      const respelled = renameFields(body, CASES[name]);
      for (const [shape, foreign] of [[name, respelled], [`${name} in an envelope`, envelope(respelled as Record<string, unknown>, '/x')]] as const) {
        const read = checkResponseBody(op.id, JSON.stringify(foreign));
        expect({ shape, ok: read.ok, ...(read.ok ? {} : { error: read.message }) }).toEqual({ shape, ok: true });
        if (read.ok && own.ok) expect(read.data).toEqual(own.data);
      }
    }
  });
});

describe('conformBody', () => {
  const schema = operations.getVisibility.response;
  it('takes one envelope off and finds what it lacks beside it', () => {
    const out = conformBody(schema, { result: { brandId: 1, Score: 50 }, meta: { generated_at: 'g' }, links: { next: null } }) as Record<string, unknown>;
    expect(out).toEqual({ brand_id: 1, score: 50, generated_at: 'g' });
  });
  it('leaves a body with the contract\'s names as it is, and drops fields the contract does not know', () => {
    expect(conformBody(schema, { brand_id: 1, vendor_extra: true })).toEqual({ brand_id: 1 });
  });
  it('keeps the error naming the contract\'s field when a renamed body still lacks one', () => {
    const read = checkResponseBody('getVisibility', JSON.stringify({ data: { brandId: 1 } }));
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.field).toBe('market');
  });
  it('does not unwrap a body that is already the body, however its objects look', () => {
    const body = { brand_id: 1, market: { id: 11, code: 'us' }, generated_at: 'g' };
    expect(conformBody(schema, body)).toEqual(body);
  });
});
