/**
 * Escaping text for HTML, in a module of its own with no import: the pages
 * (html.ts re-exports it) and the MCP App's browser bundle (src/mcp/app) both
 * carry it.
 */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
