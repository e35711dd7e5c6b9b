/** The MCP tools' names and results, unit by unit (test/mcp.test.ts has them through the Worker). */
import { describe, expect, it, vi } from 'vitest';
import { ApiClientError } from '../src/client';
import { operationList } from '../src/contract/operations';
import { toolName, toolsOfOperations } from '../src/mcp/tools';
import { failureResult } from '../src/mcp/results';
import { WindowMismatch } from '../src/weekly-report';

const httpError = (status: number, code: string, retryAfter?: number) =>
  new ApiClientError({ kind: 'http', status, code: code as never, operation: 'getVisibility', message: `getVisibility: the API says ${code}.`, ...(retryAfter !== undefined ? { retryAfter } : {}) });

describe('tool names', () => {
  it('are the operation ids in snake_case, unique, within the characters MCP allows', () => {
    expect(toolName('getAiCrawlers')).toBe('get_ai_crawlers');
    const names = toolsOfOperations().map((tool) => tool.name);
    expect(names).toEqual(operationList.map((op) => toolName(op.id)));
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
  });
});

describe('failed reads as tool results', () => {
  it('carries the API\'s 429 with its code, message and retry_after', () => {
    for (const code of ['rate_limited', 'quota_exceeded']) {
      const result = failureResult(httpError(429, code, 42), 'get_visibility');
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toEqual({ error: { code, message: `the API says ${code}.` }, status: 429, retry_after: 42 });
      expect(result.content).toEqual([{ type: 'text', text: `429 ${code}: the API says ${code}. Retry after 42 s.` }]);
    }
  });

  it('names the parameter of a 400, and makes any 5xx, timeout or broken body a 502 upstream_error', () => {
    const invalid = new ApiClientError({ kind: 'http', status: 400, code: 'invalid_parameter', operation: 'listTopics', message: 'listTopics: `from` is too early.', param: 'from' });
    expect(failureResult(invalid, 'list_topics').structuredContent).toEqual({ error: { code: 'invalid_parameter', message: '`from` is too early.', param: 'from' }, status: 400 });
    const timeout = new ApiClientError({ kind: 'timeout', status: 0, code: 'timeout', operation: 'getVisibility', message: 'no answer' });
    const broken = new ApiClientError({ kind: 'parse', status: 200, code: 'invalid_response', operation: 'getVisibility', message: 'field `score` is invalid' });
    for (const error of [httpError(500, 'internal_error'), httpError(503, 'upstream_error'), timeout, broken]) {
      expect(failureResult(error, 'get_visibility').structuredContent).toMatchObject({ error: { code: 'upstream_error' }, status: 502 });
    }
    expect(failureResult(new WindowMismatch('straddled'), 'weekly_report').structuredContent).toMatchObject({ error: { code: 'upstream_error', message: expect.stringContaining('again') }, status: 502 });
  });

  it('shows a bug as 500 internal_error without its detail, and logs it', () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const result = failureResult(new TypeError('secret detail'), 'get_visibility');
    expect(result.structuredContent).toEqual({ error: { code: 'internal_error', message: 'Something went wrong on our side.' }, status: 500 });
    expect(JSON.stringify(result)).not.toContain('secret detail');
    expect(logged).toHaveBeenCalledOnce();
    logged.mockRestore();
  });
});
