/**
 * `readBodyUpTo` (src/lib/http.ts), the one bounded reader of bodies: the
 * request bodies of the product routes, the upstream's answers in the proxy's
 * gate, the typed client's answers. A body of exactly the limit is read; one
 * byte more is refused and its stream cancelled, whether it declares its
 * length or not, and a stream that never ends is read no further than the
 * limit. A cancelled read is an error, never a shorter body.
 */
import { describe, expect, it } from 'vitest';
import { readBodyUpTo } from './http';

const LIMIT = 1000;
class TooLarge extends Error {}
const tooLarge = () => new TooLarge();

/** A body sent in chunks of `chunk` bytes, `total` in all (Infinity: it never ends), recording what it produced and whether it was cancelled. */
function source(total: number, chunk = 100) {
  const seen = { produced: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const size = Math.min(chunk, total - seen.produced);
      if (size <= 0) return controller.close();
      seen.produced += size;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

describe('readBodyUpTo', () => {
  it('reads a body of exactly the limit, streamed or declared', async () => {
    const { stream, seen } = source(LIMIT);
    expect(await readBodyUpTo(new Response(stream), LIMIT, tooLarge)).toBe('a'.repeat(LIMIT));
    expect(seen.cancelled).toBe(false);
    const declared = new Response('a'.repeat(LIMIT), { headers: { 'content-length': String(LIMIT) } });
    expect(await readBodyUpTo(declared, LIMIT, tooLarge)).toHaveLength(LIMIT);
  });

  it('refuses the limit and one byte, and cancels the stream', async () => {
    const { stream, seen } = source(LIMIT + 1);
    await expect(readBodyUpTo(new Response(stream), LIMIT, tooLarge)).rejects.toBeInstanceOf(TooLarge);
    expect(seen.cancelled).toBe(true);
  });

  it('refuses a body whose Content-Length says too much before reading it', async () => {
    const { stream, seen } = source(50 * LIMIT);
    // `duplex`: Node's Request asks for it with a stream body (workerd's ignores it).
    const request = new Request('https://edge.test/', { method: 'POST', body: stream, headers: { 'content-length': String(50 * LIMIT) }, duplex: 'half' } as RequestInit);
    await expect(readBodyUpTo(request, LIMIT, tooLarge)).rejects.toBeInstanceOf(TooLarge);
    // At most what the stream queued by itself before anyone read: never the body.
    expect(seen.produced).toBeLessThanOrEqual(100);
  });

  it('stops a body that never ends at the limit: cancelled, no more than the limit and a chunk produced', async () => {
    const { stream, seen } = source(Infinity);
    await expect(readBodyUpTo(new Response(stream), LIMIT, tooLarge)).rejects.toBeInstanceOf(TooLarge);
    expect(seen.cancelled).toBe(true);
    expect(seen.produced).toBeLessThanOrEqual(LIMIT + 2 * 100);
  });

  it('decodes a character split across chunks', async () => {
    const bytes = new TextEncoder().encode('{"name":"Zürich €"}');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += 3) controller.enqueue(bytes.slice(at, at + 3));
        controller.close();
      },
    });
    expect(await readBodyUpTo(new Response(stream), LIMIT, tooLarge)).toBe('{"name":"Zürich €"}');
  });

  it('counts bytes, not characters', async () => {
    const text = 'ü'.repeat(LIMIT / 2);
    expect(await readBodyUpTo(new Response(text), LIMIT, tooLarge)).toBe(text);
    await expect(readBodyUpTo(new Response(`${text}a`), LIMIT, tooLarge)).rejects.toBeInstanceOf(TooLarge);
  });

  it('ends a read its signal aborts with an error, never a shorter body, and cancels the stream', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"brand_id": 1, '));
      },
      // Then it stalls.
      pull: () => new Promise<void>(() => {}),
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const reading = readBodyUpTo(new Response(stream), LIMIT, tooLarge, controller.signal);
    controller.abort(new Error('timed out'));
    await expect(reading).rejects.toThrow('timed out');
    expect(cancelled).toBe(true);
  });

  it('reads no body as the empty text', async () => {
    expect(await readBodyUpTo(new Response(null), LIMIT, tooLarge)).toBe('');
  });
});
