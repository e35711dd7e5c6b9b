/**
 * The MCP App's script (bundled into the view's HTML by
 * scripts/build-mcp-app.mjs): connects to the host with the package's `App`
 * (the protocol over `postMessage`: the handshake, the host's messages, the
 * view's size whenever it changes), follows its theme, and shows each tool
 * result (render.ts) in `<main>`. The theme is the host's
 * (`hostContext.theme`: `data-theme` on the root, which the view's colours
 * follow); until the host says one, the system's (`prefers-color-scheme`).
 * The host's style variables are set on the root, but the view's CSS reads
 * only its font (`--font-sans`): the colours are the digest's, whose contrast
 * is checked.
 */
import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext, PostMessageTransport } from '@modelcontextprotocol/ext-apps';
import { CANCELLED, renderResult, WAITING } from './render';

const main = document.querySelector('main')!;
let shown = false;

function follow(context: McpUiHostContext | undefined): void {
  if (context?.theme === 'light' || context?.theme === 'dark') applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

const app = new App({ name: 'brand-ai-visibility-weekly-report', version: '1.0.0' }, { availableDisplayModes: ['inline'] }, { autoResize: true });
app.onhostcontextchanged = follow;
app.ontoolinput = () => {
  if (!shown) main.innerHTML = WAITING.html;
};
app.ontoolresult = (result) => {
  shown = true;
  main.innerHTML = renderResult(result).html;
};
app.ontoolcancelled = () => {
  if (!shown) main.innerHTML = CANCELLED.html;
};

// The host is the parent window, the view's one peer: the transport posts to it and reads only its messages.
const connected =
  window.parent === window ? Promise.reject(new Error('no host: this view is shown by an MCP host that supports MCP Apps')) : app.connect(new PostMessageTransport(window.parent, window.parent));
connected
  .then(() => follow(app.getHostContext()))
  .catch((error: Error) => {
    main.innerHTML = '';
    main.append(Object.assign(document.createElement('p'), { className: 'small', textContent: `Not connected: ${error.message}.` }));
  });
