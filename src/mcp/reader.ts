/**
 * What a request's tools, prompts and resources read with: the client of the
 * request's key (through `apiFor()`), the clock, and the static assets (the
 * app's view). It travels with the request, in `authInfo.extra`, which the
 * SDK hands every handler as `ctx.http.authInfo`: the handlers themselves
 * hold nothing of a request, so one server serves one request after another
 * (http.ts) without a key reaching another request.
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

/** The reader of the request a handler serves (`ctx` of a tool, prompt, resource or request handler). */
export function readerOf(ctx: { http?: { authInfo?: AuthInfo } }): Reader {
  const reader = ctx.http?.authInfo?.extra?.[READER] as Reader | undefined;
  // Every request reaches a server through serveReader, which sets it: without it, refuse rather than read with nothing.
  if (!reader) throw new ProtocolError(ProtocolErrorCode.InternalError, 'This request carries no API key.');
  return reader;
}
