/**
 * The typed client, called directly: URLs from the contract table, typed and
 * schema-checked results, the retry policy (with an injected sleep, so no
 * test waits), the timeout, and the one error class.
 */
import { env } from 'cloudflare:test';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ApiClientError, createClient, operationUrl, type Transport } from '../src/client';
import { originTransport } from '../src/origin/transport';
import { KEYS } from './helpers';

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
const apiError = (status: number, code: string, headers: Record<string, string> = {}) => json({ error: { code, message: `${code} happened` } }, status, headers);

/** A transport that answers from a script, one entry per request, and records the requests. */
function scripted(...answers: (Response | Error | 'hang')[]) {
  const requests: Request[] = [];
  const transport: Transport = async (request) => {
    requests.push(request);
    const next = answers.length > 1 ? answers.shift()! : answers[0]!;
    if (next === 'hang') return new Promise<Response>(() => {});
    if (next instanceof Error) throw next;
    return next.clone();
  };
  return { transport, requests };
}

/** An injected sleep on a fake clock: waiting moves the clock, never real time. */
function fakeTime() {
  let t = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<ApiClientError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiClientError);
    return error as ApiClientError;
  }
  throw new Error('expected the call to fail');
}

const origin = originTransport(env.DB);

describe('typed calls', () => {
  it('builds the URL from the table: path parameters encoded, numbers written as numbers, undefined left out', () => {
    const base = 'https://api.example/api/v1/';
    expect(operationUrl(base, 'getTopic', { id: 1101, market: 'us' })).toBe('https://api.example/api/v1/topics/1101?market=us');
    expect(operationUrl(base, 'getCompetitor', { name: 'Help wave/2' })).toBe('https://api.example/api/v1/competitors/Help%20wave%2F2');
    expect(operationUrl(base, 'listTopics', { days: 28, brand_id: undefined })).toBe('https://api.example/api/v1/topics?days=28');
    expect(() => operationUrl(base, 'getTask', {})).toThrow(/`id` is required/);
  });

  it('reads the embedded origin in-process and returns the parsed, typed body', async () => {
    const api = createClient({ apiKey: KEYS.pro, transport: origin });
    const visibility = await api.getVisibility();
    expectTypeOf(visibility.score).toEqualTypeOf<number | null>();
    expect(visibility.history).toHaveLength(12);
    const topics = await api.listTopics({ days: 28 });
    expect(topics.period.from < topics.period.to).toBe(true);
    const { data, meta } = await api.withMeta.getTopic({ id: topics.topics[0]!.id });
    expect(data.topic.id).toBe(topics.topics[0]!.id);
    expect(meta).toMatchObject({ status: 200, cache: null, attempts: 1, rateLimit: { limit: 60 } });
    expect(meta.readAt).toBeInstanceOf(Date);
  });

  it('types parameters from the table: required ones required, defaults optional, numbers as numbers', () => {
    const api = createClient({ apiKey: 'k', transport: origin });
    expectTypeOf(api.getTopic).parameter(0).toEqualTypeOf<{ id: number; brand_id?: number; market?: string }>();
    expectTypeOf<Parameters<typeof api.listSources>[0]>().toEqualTypeOf<{ limit?: number; brand_id?: number; market?: string } | undefined>();
    // @ts-expect-error `prompt` is required
    void (() => api.getAnswerRuns({}));
  });

  it('turns an API error into ApiClientError with code, status, message and param, without retrying a 4xx', async () => {
    const api = createClient({ apiKey: KEYS.pro, transport: origin, sleep: async () => expect.unreachable('no retry') });
    const error = await failure(api.listSources({ limit: 101 }));
    expect(error).toMatchObject({ kind: 'http', status: 400, code: 'invalid_parameter', param: 'limit', attempts: 1 });
    expect(await failure(createClient({ apiKey: KEYS.revoked, transport: origin }).getVisibility())).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });
});

describe('a response that fails its schema', () => {
  it('is a parse error naming the field', async () => {
    const good = await createClient({ apiKey: KEYS.pro, transport: origin }).getVisibility();
    const bad = { ...good, history: good.history.map((p, i) => (i === 3 ? { ...p, score: 'high' } : p)) };
    const error = await failure(createClient({ apiKey: 'k', transport: scripted(json(bad)).transport }).getVisibility());
    expect(error).toMatchObject({ kind: 'parse', code: 'invalid_response', field: 'history.3.score' });
    expect(error.message).toContain('`history.3.score`');
    const notJson = await failure(createClient({ apiKey: 'k', transport: scripted(new Response('<html>')).transport }).getVisibility());
    expect(notJson).toMatchObject({ kind: 'parse', code: 'invalid_response' });
  });
});

describe('a large answer', () => {
  const LIMIT = 10_000;

  it('is read up to maxBytes: exactly the limit is read, past it a parse error, not retried, its stream cancelled', async () => {
    const brands = JSON.stringify(await createClient({ apiKey: KEYS.pro, transport: origin }).listBrands());
    const padded = brands + ' '.repeat(LIMIT - new TextEncoder().encode(brands).byteLength);
    const exact = createClient({ apiKey: 'k', transport: scripted(new Response(padded)).transport, maxBytes: LIMIT });
    expect(await exact.listBrands()).toEqual(JSON.parse(brands));

    const seen = { produced: 0, cancelled: false };
    const endless: Transport = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            seen.produced += 1024;
            controller.enqueue(new Uint8Array(1024).fill(0x20));
          },
          cancel() {
            seen.cancelled = true;
          },
        }),
      );
    const error = await failure(createClient({ apiKey: 'k', transport: endless, maxBytes: LIMIT, sleep: async () => expect.unreachable('no retry') }).listBrands());
    expect(error).toMatchObject({ kind: 'parse', code: 'invalid_response', attempts: 1 });
    expect(error.message).toContain(`larger than ${LIMIT} bytes`);
    expect(seen.cancelled).toBe(true);
    expect(seen.produced).toBeLessThanOrEqual(LIMIT + 2 * 1024);
  });
});

describe('lenient reads', () => {
  it('leave out an optional part the body lacks and say so, after asking the upstream map where it is', async () => {
    const { history, ...good } = await createClient({ apiKey: KEYS.pro, transport: origin }).getVisibility();
    const asked: string[] = [];
    const lacking = createClient({ apiKey: 'k', transport: scripted(json(good)).transport, upstreamMap: async (id) => void asked.push(id) });
    const read = await lacking.lenient.getVisibility({}, { optional: ['history'] });
    expect(read.absent).toEqual(['history']);
    expect(read.data).toEqual(good);
    expect(asked).toEqual(['getVisibility']);
    // The map names where the service keeps it: read, and not absent.
    const mapped = createClient({
      apiKey: 'k',
      transport: scripted(json({ ...good, weeks: history })).transport,
      upstreamMap: async () => ({ fields: { history: 'weeks' }, convert: {}, values: {} }),
    });
    expect(await mapped.lenient.getVisibility({}, { optional: ['history'] })).toMatchObject({ absent: [], data: { ...good, history } });
    // A required field is still required, and named.
    const { score, ...noScore } = good;
    const error = await failure(createClient({ apiKey: 'k', transport: scripted(json(noScore)).transport }).lenient.getVisibility({}, { optional: ['history'] }));
    expect(error).toMatchObject({ kind: 'parse', field: 'score' });
  });
});

describe('retries', () => {
  const ok = () => json({ brands: [] });
  // listBrands' schema is strict about its body; a scripted "ok" is checked against it too.
  const brandsOk = async () => await createClient({ apiKey: KEYS.pro, transport: origin }).listBrands();

  it('retries 502 with jittered exponential backoff, each wait within [step/2, step]', async () => {
    const body = await brandsOk();
    for (const [random, expected] of [
      [0, [100, 200, 400]],
      [1, [200, 400, 800]],
    ] as const) {
      const time = fakeTime();
      const { transport, requests } = scripted(apiError(502, 'upstream_error'), apiError(502, 'upstream_error'), apiError(502, 'upstream_error'), json(body));
      const api = createClient({ apiKey: 'k', transport, ...time, random: () => random });
      await expect(api.listBrands()).resolves.toEqual(body);
      expect(requests).toHaveLength(4);
      expect(time.sleeps).toEqual(expected);
    }
    void ok;
  });

  it('gives up after the bounded number of attempts, with the last error and the attempt count', async () => {
    const time = fakeTime();
    const { transport, requests } = scripted(apiError(502, 'upstream_error'));
    const error = await failure(createClient({ apiKey: 'k', transport, ...time, retry: { attempts: 3 } }).getVisibility());
    expect(error).toMatchObject({ kind: 'http', status: 502, code: 'upstream_error', attempts: 3 });
    expect(requests).toHaveLength(3);
    expect(time.sleeps).toHaveLength(2);
  });

  it('never waits past the total time budget', async () => {
    const time = fakeTime();
    const { transport } = scripted(apiError(502, 'upstream_error'));
    const error = await failure(createClient({ apiKey: 'k', transport, ...time, random: () => 1, retry: { attempts: 10, baseDelayMs: 1000, maxDelayMs: 8000, totalMs: 5000 } }).getVisibility());
    // Waits of 1 s and 2 s fit in 5 s; the next (4 s) would not.
    expect(time.sleeps).toEqual([1000, 2000]);
    expect(error.attempts).toBe(3);
  });

  it('retries network failures', async () => {
    const body = await brandsOk();
    const time = fakeTime();
    const { transport, requests } = scripted(new TypeError('connection reset'), json(body));
    await expect(createClient({ apiKey: 'k', transport, ...time }).listBrands()).resolves.toEqual(body);
    expect(requests).toHaveLength(2);
    const down = await failure(createClient({ apiKey: 'k', transport: scripted(new TypeError('connection reset')).transport, ...fakeTime() }).listBrands());
    expect(down).toMatchObject({ kind: 'network', code: 'network_error', status: 0, attempts: 4 });
  });

  it('honours Retry-After on 429 rate_limited', async () => {
    const body = await brandsOk();
    const time = fakeTime();
    const { transport, requests } = scripted(apiError(429, 'rate_limited', { 'retry-after': '7' }), json(body));
    await expect(createClient({ apiKey: 'k', transport, ...time }).listBrands()).resolves.toEqual(body);
    expect(time.sleeps).toEqual([7000]);
    expect(requests).toHaveLength(2);
  });

  it('does not retry a 429 whose Retry-After is past the budget, and hands Retry-After to the caller', async () => {
    const time = fakeTime();
    const error = await failure(createClient({ apiKey: 'k', transport: scripted(apiError(429, 'rate_limited', { 'retry-after': '45' })).transport, ...time }).listBrands());
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 45, attempts: 1 });
    expect(time.sleeps).toEqual([]);
  });

  it('never retries quota_exceeded nor other 4xx', async () => {
    for (const [status, code] of [
      [429, 'quota_exceeded'],
      [400, 'invalid_parameter'],
      [403, 'feature_not_in_plan'],
      [404, 'not_found'],
      [409, 'integration_not_connected'],
    ] as const) {
      const time = fakeTime();
      const { transport, requests } = scripted(apiError(status, code, { 'retry-after': '3' }));
      const error = await failure(createClient({ apiKey: 'k', transport, ...time }).listBrands());
      expect({ status: error.status, code: error.code, requests: requests.length, sleeps: time.sleeps.length }).toEqual({ status, code, requests: 1, sleeps: 0 });
    }
  });

  it('times out a request that does not answer, and retries it within the budget', async () => {
    const body = await brandsOk();
    const time = fakeTime();
    const { transport, requests } = scripted('hang', json(body));
    // 5 ms of real time is the one wait here: the timer under test.
    await expect(createClient({ apiKey: 'k', transport, timeoutMs: 5, ...time }).listBrands()).resolves.toEqual(body);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.signal.aborted).toBe(true);
    const error = await failure(createClient({ apiKey: 'k', transport: scripted('hang').transport, timeoutMs: 5, retry: { attempts: 1 } }).listBrands());
    expect(error).toMatchObject({ kind: 'timeout', code: 'timeout', status: 0 });
  });

  it("sends the key as a bearer token and the caller's extra headers", async () => {
    const { transport, requests } = scripted(apiError(404, 'not_found'));
    await failure(createClient({ apiKey: 'secret_key', transport }).getTask({ id: 9 }, { headers: { 'cache-control': 'no-cache' } }));
    expect(requests[0]!.headers.get('authorization')).toBe('Bearer secret_key');
    expect(requests[0]!.headers.get('cache-control')).toBe('no-cache');
    expect(requests[0]!.url).toBe('http://origin.internal/api/v1/tasks/9');
  });
});
