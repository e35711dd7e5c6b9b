/**
 * Tool results. A read that answers is `structuredContent` (the API's JSON
 * body, an object for every operation) and its compact text form: the same
 * JSON on one line, as the MCP spec asks of a tool that returns structured
 * content, for clients that read only `content`. A read the API refuses (401,
 * 403, 404, 409, 429, 502...) is a result too, with `isError: true`, so the
 * assistant sees the API's code and message and can act on them (another
 * brand, another plan, wait `retry_after` seconds); never a protocol error.
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import { ApiClientError, toApiError } from '../client';
import { ApiError } from '../contract/errors';
import { errorText } from '../lib/log';
import { OperationMissing, WindowMismatch } from '../weekly-report';

/** An answer: the body as structured content, and as text. `text` replaces the JSON line where a tool has words of its own. */
export function bodyResult(body: object, text = JSON.stringify(body)): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: body as Record<string, unknown> };
}

/** The API's refusal as a tool result: `{ error: { code, message, param? }, status, retry_after? }`. */
export function errorResult(error: ApiError): CallToolResult {
  const retryAfter = error.options.retryAfter;
  const structured = { ...error.body, status: error.status, ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}) };
  const wait = retryAfter !== undefined ? ` Retry after ${retryAfter} s.` : '';
  return { isError: true, content: [{ type: 'text', text: `${error.status} ${error.code}: ${error.message}${wait}` }], structuredContent: structured };
}

/**
 * A failed read as a tool result: the client's error as the API's (its own
 * 4xx passed through, anything else 502 `upstream_error`, as the product's
 * routes answer it); an operation the service lacks as 502
 * `operation_missing`, naming it; the weekly reads that straddled midnight
 * twice as a 502 to retry; anything else logged and shown as 500 `internal_error`, without
 * its detail.
 */
export function failureResult(error: unknown, tool: string): CallToolResult {
  if (error instanceof ApiClientError && error.kind !== 'parse') return errorResult(toApiError(error));
  if (error instanceof OperationMissing) return errorResult(error.toApiError());
  if (error instanceof WindowMismatch)
    return errorResult(
      new ApiError(
        'upstream_error',
        error.persistent
          ? `The Read API's fixed windows do not cover the same 7 days (${error.message}): a \`period\` is most likely read from the wrong field; the compatibility check (POST /admin/upstream/check) says which.`
          : "The week's reads fell on both sides of midnight UTC. Call the tool again.",
      ),
    );
  if (error instanceof ApiClientError && error.kind === 'parse')
    return errorResult(
      new ApiError('upstream_error', `The Read API answered ${error.operation} with a body this product cannot read${error.field ? ` (its field \`${error.field}\`)` : ''}: ${error.message}`),
    );
  console.error(JSON.stringify({ msg: 'mcp tool failed', tool, error: errorText(error) }));
  return errorResult(new ApiError('internal_error', 'Something went wrong on our side.'));
}
