/**
 * The MCP App's HTML document, `text/html;profile=mcp-app`, around the view's
 * bundled script: laid out here, built by scripts/build-mcp-app.mjs into the
 * Worker's static assets (asset.ts), and served by `resources/read` of
 * `ui://brand-ai-visibility/weekly-report.html` (weekly-view.ts). No Worker
 * module imports this file. One self-contained document: the style inline
 * (the colours of every page, src/lib/html.ts, and the report's chart), the
 * script inline, no URL in its markup or style, so the view loads nothing and
 * declares no domain in its CSP.
 *
 * The colours follow the host's theme (`data-theme` on the root, set by the
 * script from `hostContext.theme`), and the system's (`prefers-color-scheme`)
 * until the host says one. One column (checked at 400 and 700 px); the chart
 * scales to the width.
 */
import { COLOURS, PRODUCT_NAME } from '../../lib/html';
import { html, inlineScript, trusted } from '../../lib/markup';
import { CHART_STYLE } from '../../weekly-report/chart';

const STYLE = `
:root{color-scheme:light dark;${COLOURS.light}}
@media (prefers-color-scheme:dark){:root{${COLOURS.dark}}}
:root[data-theme=light]{color-scheme:light;${COLOURS.light}}
:root[data-theme=dark]{color-scheme:dark;${COLOURS.dark}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--page);color:var(--ink);font:15px/1.5 var(--font-sans,-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif)}
.masthead{padding:14px 20px 0;font-size:13px;color:var(--muted)}
.masthead b{color:var(--ink)}
main{padding:2px 20px 16px;overflow-wrap:break-word}
h1{font-size:20px;line-height:1.25;margin:0 0 2px}
h2{font-size:16px;line-height:1.3;margin:18px 0 6px;padding-top:12px;border-top:1px solid var(--rule)}
p{margin:0 0 10px}
.small{font-size:13px;color:var(--muted);margin:0 0 8px}
.lead{background:var(--panel);border-left:4px solid var(--accent-strong);padding:10px 14px;font-weight:600;margin:10px 0 6px}
.score{font-size:34px;font-weight:700;line-height:1.15;margin:0 0 4px}
.score .chg{font-size:17px;font-weight:600}
.up{color:var(--good)}.down{color:var(--bad)}.flat{color:var(--muted)}
figure{margin:8px 0 0}
figcaption{font-size:13px;color:var(--muted);margin-top:2px}
table{border-collapse:collapse;width:100%;font-size:14px;margin:0 0 6px}
th,td{text-align:left;padding:5px 0;border-bottom:1px solid var(--rule);vertical-align:top}
thead th{font-size:12px;color:var(--muted);font-weight:400}
tbody th{font-weight:400}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap;padding-left:12px}
td.up,td.down{font-weight:600}
.counts{font-weight:700;margin:0 0 8px}
.counts .flat{font-weight:400}
ol.questions{list-style:none;padding:0;margin:0}
ol.questions li{border-left:3px solid var(--good);padding:0 0 0 10px;margin:0 0 12px;overflow-wrap:anywhere}
ol.questions li.lost{border-left-color:var(--bad)}
ol.questions strong{display:block}
ol.questions .small{display:block;margin:0}
footer.small{margin-top:14px}
@media (max-width:480px){.masthead{padding:12px 14px 0}main{padding:2px 14px 14px}.score{font-size:30px}}
${CHART_STYLE}`;

/** The document, with `script` (the view's bundle, minified) inline, escaped for that place (in the package's strings as much as in ours). */
export function viewDocument(script: string): string {
  return html`<!doctype html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Weekly report · ${PRODUCT_NAME}</title>
<style>${trusted(STYLE)}</style>
</head>
<body>
<header class="masthead"><b>${PRODUCT_NAME}</b></header>
<main><p class="small">Waiting for the figures…</p></main>
<script>${inlineScript(script)}</script>
</body>
</html>
`.html;
}
