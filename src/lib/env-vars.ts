/**
 * zod pieces for a Worker's environment: a binding is an object, a secret a
 * non-empty string, and a var declared as "" in wrangler.toml means unset.
 */
import * as z from 'zod';

/** A secret the deployment must have: `wrangler secret put NAME`, or `.dev.vars` locally. */
export const secret = z.string().min(1);
export const binding = z.custom<object>((value) => typeof value === 'object' && value !== null, { error: 'binding missing' });
/** A binding only some features need: absent turns them off. */
export const optionalBinding = binding.optional();
/**
 * A secret only some features need: unset (or empty) turns them off. Never
 * trimmed: a key is used as given.
 */
export const optionalSecret = z
  .string()
  .optional()
  .transform((s) => (s?.trim() ? s : undefined));
/** A var that is empty when unset. */
export const optionalText = z
  .string()
  .optional()
  .transform((s) => (s?.trim() ? s.trim() : undefined));
/** Seconds or milliseconds written as digits; empty means the default. */
export const optionalCount = optionalText.pipe(z.string().regex(/^\d+$/, { error: 'must be a whole number' }).transform(Number).optional());
/** An http(s) URL, or unset. */
export const optionalHttpUrl = (error: string) => optionalText.pipe(z.url({ protocol: /^https?$/, error }).optional());
/** A comma-separated list; empty when unset. */
export const optionalList = optionalText.transform((s) => (s ? s.split(',').map((o) => o.trim()).filter(Boolean) : []));
