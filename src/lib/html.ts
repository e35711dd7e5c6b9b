/** Small HTML pages for people following links from emails: confirm, unsubscribe, and their errors. */
import { TOKEN_FAILURE_STATUS, type TokenFailure } from './signing';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export { escapeHtml };

/** A page with a title, paragraphs (plain text, escaped) and optional raw HTML after them. */
export function page(status: number, title: string, paragraphs: string[], extraHtml = ''): Response {
  const body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#111827;background:#f3f4f6;margin:0;padding:24px}
main{max-width:560px;margin:0 auto;background:#fff;border:1px solid #e5e7eb;padding:24px}
h1{font-size:22px;margin:0 0 12px}p{line-height:1.5}
button{background:#1d4ed8;color:#fff;border:0;padding:12px 20px;font-size:16px;font-weight:600;cursor:pointer}
button:focus{outline:3px solid #93c5fd;outline-offset:2px}
</style>
</head>
<body><main>
<h1>${escapeHtml(title)}</h1>
${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${extraHtml}
</main></body>
</html>`;
  return new Response(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // Links carry tokens: never leak them to other sites.
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    },
  });
}

/** A bad link, with the status of the one policy (`TOKEN_FAILURE_STATUS`). Never a 500. */
export function badTokenPage(reason: TokenFailure, what: string): Response {
  const status = TOKEN_FAILURE_STATUS[reason];
  switch (reason) {
    case 'expired':
      return page(status, 'This link has expired', [`The ${what} link is no longer valid.`, 'Links in our emails expire; use the link in a more recent email, or subscribe again.']);
    case 'forged':
    case 'wrong_purpose':
      return page(status, 'This link is not valid', [`The ${what} link was not issued by us or has been changed.`, 'Open the link exactly as it appears in the email.']);
    default:
      return page(status, 'This link is incomplete', [`The ${what} link is missing its token or it was cut short.`, 'Open the link exactly as it appears in the email; some mail programs break long links.']);
  }
}
