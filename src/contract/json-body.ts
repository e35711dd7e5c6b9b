/**
 * Request bodies of the product's own POST routes (subscriptions, report
 * links): JSON objects with a size bound and strict fields. Every problem is
 * a 400 `invalid_parameter` naming the field, in the API's error shape.
 */
import type * as z from 'zod';
import { readBodyUpTo } from '../lib/http';
import { invalidParameter } from './errors';

/** Reads a JSON body, refusing another content type, more than `maxBytes`, or text that is not JSON. */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type)) throw invalidParameter('content-type', 'Send the body as JSON with `Content-Type: application/json`.');
  // Refused by its declared length before a byte is read, or cut off at `maxBytes` when it declares none.
  const text = await readBodyUpTo(request, maxBytes, () => invalidParameter('body', `The body must be at most ${maxBytes} bytes.`));
  try {
    return JSON.parse(text);
  } catch {
    throw invalidParameter('body', 'The body is not valid JSON.');
  }
}

/** Parses a JSON object with a strict schema; an unknown field is named with the fields there are. */
export function parseJsonObject<S extends z.ZodObject>(schema: S, raw: unknown): z.output<S> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalidParameter('body', 'The body must be a JSON object.');
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const key = String(issue.keys[0]);
    throw invalidParameter(key, `Unknown field \`${key}\`. Fields: ${Object.keys(schema.shape).join(', ')}.`);
  }
  const param = String(issue.path[0] ?? 'body');
  throw invalidParameter(param, issue.message.startsWith('`') ? issue.message : `\`${param}\` is invalid: ${issue.message}.`);
}
