/**
 * The MCP App's script (bundled into the view's HTML by
 * scripts/build-mcp-app.mjs): connects to the host (bridge.ts), follows its
 * theme, and shows each tool result (render.ts) in `<main>`. The theme is the
 * host's (`hostContext.theme`: `data-theme` on the root, which the view's
 * colours follow); until the host says one, the system's
 * (`prefers-color-scheme`). Of the host's style variables, only its font is
 * taken: the colours are the digest's, whose contrast is checked.
 */
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import { connectToHost } from './bridge';
import { CANCELLED, renderResult, WAITING } from './render';

const main = document.querySelector('main')!;
let shown = false;

function follow(context: McpUiHostContext): void {
  const root = document.documentElement;
  if (context.theme === 'light' || context.theme === 'dark') root.dataset.theme = context.theme;
  const font = context.styles?.variables?.['--font-sans'];
  if (font) root.style.setProperty('--font-sans', font);
}

connectToHost(
  { name: 'brand-ai-visibility-weekly-report', version: '1.0.0' },
  {
    hostContext: follow,
    toolInput: () => {
      if (!shown) main.innerHTML = WAITING;
    },
    toolResult: (result) => {
      shown = true;
      main.innerHTML = renderResult(result);
    },
    toolCancelled: () => {
      if (!shown) main.innerHTML = CANCELLED;
    },
  },
).catch((error: Error) => {
  main.innerHTML = '';
  main.append(Object.assign(document.createElement('p'), { className: 'small', textContent: `Not connected: ${error.message}.` }));
});
