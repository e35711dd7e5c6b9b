/**
 * The account's forms as they arrive: read only when they come from this site and within their size, and their
 * fields as text. A form refused here is said by its page (`refusedFormPage`, shell.ts), never acted on.
 */
import { fromThisSite, readBodyUpTo } from '../lib/http';

/** A form here is a handful of short fields. */
const MAX_FORM_BYTES = 8 * 1024;

/** A form not accepted (another site's, one that cannot be read, another session's): why, in people's words. */
export class FormRefused extends Error {
  constructor(readonly reason: string) {
    super('form refused');
  }
}

/** The posted form, read up to its limit; refused (403) when it does not come from this site. */
export async function formOf(request: Request): Promise<FormData> {
  if (!fromThisSite(request)) throw new FormRefused('It was not sent from a page of this site.');
  try {
    const text = await readBodyUpTo(request, MAX_FORM_BYTES, () => new Error('too large'));
    return await new Request(request.url, { method: 'POST', headers: { 'content-type': request.headers.get('content-type') ?? '' }, body: text }).formData();
  } catch {
    throw new FormRefused('It could not be read: send it from its page.');
  }
}

export const field = (form: FormData, name: string) => {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
};

/** The brand and market a form's `scope` names (`<brand id>:<market code>`), as the JSON bodies take them. */
export function scopeOf(scope: string): { brand_id?: number; market?: string } {
  const found = /^(\d+):(.*)$/.exec(scope);
  return found ? { brand_id: Number(found[1]), ...(found[2] ? { market: found[2] } : {}) } : {};
}
