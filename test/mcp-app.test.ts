/**
 * The weekly report as an MCP App, through the Worker with the SDK's client:
 * `weekly_report` and `get_visibility` link the view's `ui://` resource,
 * `resources/list` lists it and `resources/read` serves it as
 * `text/html;profile=mcp-app`, the document built into the static assets
 * (`npm test` builds it first), which loads nothing and can make no request
 * of its own; without the assets, the read is an MCP error and the tools
 * still answer; the text result is the same for a host with apps and one
 * without; and the view, given the real results, shows their figures
 * (src/mcp/app/render.ts, the function the browser runs). The view in a real
 * browser and host is `npm test -- browser` (scripts/browser/mcp-app.mjs).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { env, SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import { escapeHtml } from '../src/lib/escape';
import { MCP_PATH } from '../src/mcp';
import { VIEW_ASSET_PATH } from '../src/mcp/app/asset';
import { renderResult } from '../src/mcp/app/render';
import { reportText } from '../src/mcp/weekly';
import { registerWeeklyView, WEEKLY_VIEW_URI } from '../src/mcp/weekly-view';
import type { Report } from '../src/weekly-report';
import { formatPercent, formatTrend, quoted } from '../src/weekly-report/words';
import { KEYS } from './helpers';

const MCP_URL = `http://localhost${MCP_PATH}`;
const MIME = 'text/html;profile=mcp-app';
const UI_EXTENSION = 'io.modelcontextprotocol/ui';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** A client of `era`; `apps`: it declares the MCP Apps extension, as a host that shows them does. */
async function connect(era: 'legacy' | 'auto', apps: boolean): Promise<Client> {
  const capabilities = apps ? { extensions: { [UI_EXTENSION]: { mimeTypes: [MIME] } } } : {};
  const client = new Client({ name: apps ? 'apps-host' : 'text-host', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: era } } as never);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: (url, init) => SELF.fetch(new Request(url, init)), requestInit: { headers: { authorization: `Bearer ${KEYS.pro}` } } }),
  );
  clients.push(client);
  return client;
}

const withoutTimes = (value: unknown) =>
  JSON.parse(JSON.stringify(value, (name, v) => (name === 'generated_at' || name === 'read_at' || name === 'max_age_seconds' || name === 'reads' || name === 'from_cache' ? undefined : v)));

describe('the MCP App', () => {
  for (const era of ['legacy', 'auto'] as const) {
    it(`links the view from weekly_report and get_visibility only, and lists it as a resource (${era})`, async () => {
      const client = await connect(era, true);
      const { tools } = await client.listTools();
      const linked = tools.filter((t) => t._meta?.ui !== undefined).map((t) => t.name);
      expect(linked.sort()).toEqual(['get_visibility', 'weekly_report']);
      for (const name of linked) {
        const meta = tools.find((t) => t.name === name)!._meta!;
        expect(meta.ui).toEqual({ resourceUri: WEEKLY_VIEW_URI });
        // The flat key of the first hosts, which the package's registerAppTool keeps in step.
        expect(meta['ui/resourceUri']).toBe(WEEKLY_VIEW_URI);
      }
      expect(WEEKLY_VIEW_URI).toMatch(/^ui:\/\//);

      const { resources } = await client.listResources();
      const view = resources.find((r) => r.uri === WEEKLY_VIEW_URI);
      expect(view).toMatchObject({ mimeType: MIME, _meta: { ui: { prefersBorder: true, csp: { connectDomains: [], resourceDomains: [] } } } });
    });
  }

  it('serves the view as one self-contained HTML document: no URL, nothing to load, no request but messages to its host', async () => {
    const client = await connect('legacy', true);
    const { contents } = await client.readResource({ uri: WEEKLY_VIEW_URI });
    expect(contents).toHaveLength(1);
    const [content] = contents as [{ uri: string; mimeType: string; text: string; _meta: { ui: Record<string, unknown> } }];
    expect(content.uri).toBe(WEEKLY_VIEW_URI);
    expect(content.mimeType).toBe(MIME);
    expect(content._meta.ui).toEqual({ prefersBorder: true, csp: { connectDomains: [], resourceDomains: [] } });
    const html = content.text;
    // The document the build put in the static assets, as they hold it.
    expect(html).toBe(await (await env.ASSETS.fetch(`https://assets.invalid${VIEW_ASSET_PATH}`)).text());
    expect(html).toMatch(/^<!doctype html>\n<html lang="en"/);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html.match(/<script[\s>]/g)).toHaveLength(1);
    expect(html).toContain('<script>');
    const start = html.indexOf('<script>') + 8;
    const end = html.lastIndexOf('</script>');
    const script = html.slice(start, end);
    const markup = html.slice(0, start) + html.slice(end);
    // Nothing is loaded: no src or href, no URL at all, no stylesheet import, no external script.
    expect(markup).not.toMatch(/\s(src|href|srcset|action|poster|data)\s*=/i);
    expect(markup).not.toMatch(/https?:\/\/|\/\/[a-z0-9.-]+\.[a-z]{2,}\//i);
    expect(markup).not.toMatch(/@import|url\(/i);
    // The one inline script is the view's bundle, with the package's App: it only posts messages to its host
    // (window.parent) and reads theirs. (The package's schema descriptions name fetch and WebSocket in their text;
    // the build checks that no code refers to them: scripts/build-mcp-app.mjs.)
    expect(script).not.toMatch(/\bfetch\s*\(|new\s+(XMLHttpRequest|WebSocket|EventSource)\b|sendBeacon\s*\(|\bimport\s*\(|importScripts\s*\(|\.(src|href|action)\s*=(?!=)/);
    expect(script).toMatch(/\.parent\b/);
    expect(script).toContain('postMessage(');
    expect(script).toContain('ui/initialize');
    // Both themes: the host's (data-theme) and, until it says one, the system's.
    expect(html).toContain(':root[data-theme=dark]{color-scheme:dark;');
    expect(html).toContain('@media (prefers-color-scheme:dark)');
  });

  it('answers an MCP error, not a crash, when the view is not in the static assets or they are not bound', async () => {
    const missing = { fetch: async () => new Response('Not Found', { status: 404 }) } as unknown as Fetcher;
    for (const assets of [undefined, missing]) {
      const server = new McpServer({ name: 'view-only', version: '1.0.0' });
      registerWeeklyView(server, assets);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const client = new Client({ name: 'apps-host', version: '1.0.0' });
      await client.connect(clientSide);
      clients.push(client);
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual([WEEKLY_VIEW_URI]);
      await expect(client.readResource({ uri: WEEKLY_VIEW_URI })).rejects.toThrow('The weekly report view is not available on this server. The tool results carry the same figures as text.');
    }
  });

  it('answers the same text to a host with apps and to one without: the view changes nothing in the result', async () => {
    const withApps = await connect('legacy', true);
    const textOnly = await connect('auto', false);
    for (const name of ['weekly_report', 'get_visibility']) {
      const [a, b] = await Promise.all([withApps.callTool({ name, arguments: { market: 'us' } }), textOnly.callTool({ name, arguments: { market: 'us' } })]);
      expect(a.isError).toBeFalsy();
      expect(a.content).toHaveLength(1);
      expect(withoutTimes(a.structuredContent)).toEqual(withoutTimes(b.structuredContent));
      expect((a.content as { text: string }[])[0]!.text).toBe((b.content as { text: string }[])[0]!.text);
    }
    // The text is the whole report's summary (the structured content holds the plan's first items only).
    const weekly = await textOnly.callTool({ name: 'weekly_report', arguments: { market: 'us' } });
    const page = await SELF.fetch('https://edge.test/reports/weekly?format=json&market=us', { headers: { authorization: `Bearer ${KEYS.pro}` } });
    const { report } = (await page.json()) as { report: Report };
    expect(weekly.content).toEqual([{ type: 'text', text: reportText(report) }]);
    const visibility = await textOnly.callTool({ name: 'get_visibility', arguments: { market: 'us' } });
    expect(visibility.content).toEqual([{ type: 'text', text: JSON.stringify(visibility.structuredContent) }]);
  });

  it('shows the weekly report from its structuredContent: the score, its change, the 12 weeks, the engines, the questions lost and won', async () => {
    const client = await connect('legacy', true);
    const result = await client.callTool({ name: 'weekly_report', arguments: { market: 'us' } });
    const { report } = result.structuredContent as { report: Report };
    const vis = report.visibility!;
    const wl = report.won_lost!;
    const html = renderResult(result as never).html;
    expect(html).toContain(`data-score="${vis.score!.toFixed(1)}">${formatPercent(vis.score)} `);
    expect(html).toContain(formatTrend(vis.change, vis.trend));
    expect(html).toContain(escapeHtml(report.lead.headline));
    // The report page's chart: a point per week, the latest larger.
    expect(html.match(/<g class="point/g)).toHaveLength(12);
    expect(html).toContain('class="point latest"');
    for (const engine of report.engines) expect(html).toContain(`data-engine="${engine.engine}"`);
    expect(html).toContain(`${wl.counts.lost} lost</span> · <span class="up">${wl.counts.won} won`);
    for (const q of [...wl.top_lost, ...wl.top_won]) expect(html).toContain(`data-question-id="${q.question_id}"`);
    expect(html).toContain(escapeHtml(quoted(wl.top_lost[0]!.text)));
    const shown = wl.top_lost.length + wl.top_won.length;
    if (wl.counts.won + wl.counts.lost > shown) expect(html).toContain(`${wl.counts.won + wl.counts.lost - shown} more questions changed`);
  });

  it('shows get_visibility: the score, its change judged against the noise, the chart', async () => {
    const client = await connect('legacy', true);
    const result = await client.callTool({ name: 'get_visibility', arguments: { market: 'us' } });
    const body = result.structuredContent as { score: number; history: unknown[]; market: { code: string } };
    const html = renderResult(result as never).html;
    expect(html).toContain(`data-score="${body.score.toFixed(1)}">${formatPercent(body.score)} `);
    expect(html).toMatch(/<span class="chg (up|down|flat)">(steady|[+−]\d+\.\d pts|no comparison)<\/span>/);
    expect(html.match(/<g class="point/g)).toHaveLength(body.history.length);
    expect(html).toContain('market US');
  });

  it('says a refusal, escapes what the result says, and never throws on a shape it does not know', async () => {
    expect(renderResult({ isError: true, structuredContent: { error: { code: 'feature_not_in_plan', message: 'Your plan <b>lacks</b> it.' } } }).html).toContain(
      'Your plan &lt;b&gt;lacks&lt;/b&gt; it.',
    );
    const client = await connect('legacy', true);
    const result = await client.callTool({ name: 'weekly_report', arguments: { market: 'us' } });
    const { report, source } = result.structuredContent as { report: Report; source: unknown };
    const hostile = renderResult({ structuredContent: { report: { ...report, brand: { ...report.brand, name: '<img src=x onerror=alert(1)>' } }, source } }).html;
    expect(hostile).not.toContain('<img');
    expect(hostile).toContain('&lt;img src=x onerror=alert(1)&gt; in AI answers');
    for (const odd of [{}, { report: { brand: null } }, { history: 'no', score: 1 }]) expect(renderResult({ structuredContent: odd }).html).toContain('the assistant has it as text');
  });
});
