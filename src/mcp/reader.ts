/**
 * What a request's tools, prompts and resources read with: the client of the
 * request's key (through `apiFor()`), the clock, and the static assets (the
 * app's view). The request's server is built with it (`mcpServer(reader)`,
 * server.ts); it reaches the SDK's per-request factory in `authInfo.extra`,
 * the one value the SDK hands the factory from the caller (http.ts).
 */
import { type AuthInfo, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ApiClient } from '../client';
import { READ_SCOPE } from './oauth-paths';

export interface Reader {
  client: ApiClient;
  now: () => Date;
  assets: Fetcher | undefined;
}

const READER = 'reader';

/** The request's `authInfo`, carrying its reader (the key itself stays inside the client). */
export const readerAuth = (reader: Reader): AuthInfo => ({ token: '', clientId: '', scopes: [READ_SCOPE], extra: { [READER]: reader } });

/** The reader a request's `authInfo` carries (`readerAuth`). */
export function readerOf(authInfo: AuthInfo | undefined): Reader {
  const reader = authInfo?.extra?.[READER] as Reader | undefined;
  // Every request reaches a server through serveReader, which sets it: without it, refuse rather than read with nothing.
  if (!reader) throw new ProtocolError(ProtocolErrorCode.InternalError, 'This request carries no API key.');
  return reader;
}
