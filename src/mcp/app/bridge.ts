/**
 * The view's side of the MCP Apps protocol (SEP-1865, revision 2026-01-26):
 * JSON-RPC 2.0 with the host over `postMessage`, nothing else. In order:
 *
 * 1. the view asks `ui/initialize` (its name, what it can do, the revision)
 *    and takes the host's context from the answer (theme, style variables);
 * 2. it says `ui/notifications/initialized`, then reports its height with
 *    `ui/notifications/size-changed` whenever its content changes size;
 * 3. the host sends the tool's arguments (`ui/notifications/tool-input`), its
 *    result (`ui/notifications/tool-result`), a cancellation, and context
 *    changes (`ui/notifications/host-context-changed`, a new theme); it may
 *    ask `ping` and `ui/resource-teardown`, answered at once.
 *
 * Why not the package's `App` class: bundled for the browser it brings the
 * SDK's whole `Protocol`, the MCP schemas and zod, 92.6 KiB gzip at best
 * (esbuild, minified, zod's locales left out; 142 KiB as the package
 * resolves), and the view's HTML travels inside the Worker, whose whole
 * bundle may weigh 400 KiB gzip. This is the part of `App` the view uses,
 * with the messages typed by the package's own spec types, and
 * `npm run test:browser` runs it against the package's host side
 * (`AppBridge` of `@modelcontextprotocol/ext-apps/app-bridge`).
 *
 * Only messages from the parent window are read: the host is the view's one
 * peer, and the view asks nothing of anyone else.
 */
import type {
  LATEST_PROTOCOL_VERSION,
  McpUiHostContext,
  McpUiHostContextChangedNotification,
  McpUiInitializedNotification,
  McpUiInitializeRequest,
  McpUiInitializeResult,
  McpUiResourceTeardownRequest,
  McpUiSizeChangedNotification,
  McpUiToolCancelledNotification,
  McpUiToolInputNotification,
  McpUiToolResultNotification,
} from '@modelcontextprotocol/ext-apps';

/** The revision this view speaks: typed as the package's latest, so a package that moves on fails the typecheck here. */
const PROTOCOL_VERSION: typeof LATEST_PROTOCOL_VERSION = '2026-01-26';

export type ToolResult = McpUiToolResultNotification['params'];

export interface ViewHandlers {
  /** The host's context, at initialization and on every change (only the fields that changed). */
  hostContext(context: McpUiHostContext): void;
  toolInput(args: McpUiToolInputNotification['params']['arguments']): void;
  toolResult(result: ToolResult): void;
  toolCancelled(reason: McpUiToolCancelledNotification['params']['reason']): void;
}

type Message = { jsonrpc: '2.0'; id?: number | string; method?: string; params?: unknown; result?: unknown; error?: { code: number; message: string } };

const METHOD_NOT_FOUND = -32601;

/**
 * Connects to the host and calls `handlers` as its messages arrive. Resolves
 * once the host has answered `ui/initialize`; rejects when the view has no
 * host (opened on its own) or the host refuses.
 */
export function connectToHost(appInfo: McpUiInitializeRequest['params']['appInfo'], handlers: ViewHandlers): Promise<void> {
  const host = window.parent;
  if (host === window) return Promise.reject(new Error('no host: this view is shown by an MCP host that supports MCP Apps'));
  const send = (message: Omit<Message, 'jsonrpc'>) => host.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const notify = (n: McpUiInitializedNotification | McpUiSizeChangedNotification) => send(n);
  let initialize: { resolve(result: McpUiInitializeResult): void; reject(error: Error): void } | undefined;
  const INITIALIZE_ID = 1;

  window.addEventListener('message', (event: MessageEvent) => {
    if (event.source !== host) return;
    const message = event.data as Message | null;
    if (!message || typeof message !== 'object' || message.jsonrpc !== '2.0') return;
    if (message.method === undefined) {
      // An answer: the view asks one question, `ui/initialize`.
      if (message.id !== INITIALIZE_ID || !initialize) return;
      if (message.error) initialize.reject(new Error(`the host refused ui/initialize: ${message.error.message}`));
      else initialize.resolve(message.result as McpUiInitializeResult);
      initialize = undefined;
      return;
    }
    if (message.id !== undefined) {
      // A request of the host: ping and teardown ask for nothing but an answer; the view serves no other.
      const known = message.method === 'ping' || message.method === ('ui/resource-teardown' satisfies McpUiResourceTeardownRequest['method']);
      send(known ? { id: message.id, result: {} } : { id: message.id, error: { code: METHOD_NOT_FOUND, message: `The view does not serve ${message.method}.` } });
      return;
    }
    switch (message.method) {
      case 'ui/notifications/tool-input' satisfies McpUiToolInputNotification['method']:
        handlers.toolInput((message.params as McpUiToolInputNotification['params'] | undefined)?.arguments);
        break;
      case 'ui/notifications/tool-result' satisfies McpUiToolResultNotification['method']:
        handlers.toolResult(message.params as ToolResult);
        break;
      case 'ui/notifications/tool-cancelled' satisfies McpUiToolCancelledNotification['method']:
        handlers.toolCancelled((message.params as McpUiToolCancelledNotification['params'] | undefined)?.reason);
        break;
      case 'ui/notifications/host-context-changed' satisfies McpUiHostContextChangedNotification['method']:
        handlers.hostContext((message.params ?? {}) as McpUiHostContext);
        break;
    }
  });

  return new Promise<McpUiInitializeResult>((resolve, reject) => {
    initialize = { resolve, reject };
    const request: McpUiInitializeRequest = { method: 'ui/initialize', params: { appInfo, appCapabilities: { availableDisplayModes: ['inline'] }, protocolVersion: PROTOCOL_VERSION } };
    send({ id: INITIALIZE_ID, ...request });
  }).then((result) => {
    handlers.hostContext(result.hostContext ?? {});
    notify({ method: 'ui/notifications/initialized', params: {} });
    reportSize(notify);
  });
}

/**
 * Tells the host the view's size now and whenever it changes, at most once a
 * frame: the height of the content (measured with the root at `max-content`,
 * so a host's taller frame does not count) and the window's width.
 */
function reportSize(notify: (n: McpUiSizeChangedNotification) => void): void {
  let queued = false;
  let sent = { width: 0, height: 0 };
  const measure = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      const root = document.documentElement;
      const before = root.style.height;
      root.style.height = 'max-content';
      const height = Math.ceil(root.getBoundingClientRect().height);
      root.style.height = before;
      const width = Math.ceil(window.innerWidth);
      if (width === sent.width && height === sent.height) return;
      sent = { width, height };
      notify({ method: 'ui/notifications/size-changed', params: sent });
    });
  };
  measure();
  const observer = new ResizeObserver(measure);
  observer.observe(document.documentElement);
  observer.observe(document.body);
}
