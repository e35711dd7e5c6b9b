/** Shared by the export tests: minting through the Worker, reading a link, and the expected rows of an answer, computed here from the JSON. */
import { env } from 'cloudflare:test';
import { parse } from 'csv-parse/sync';
import { sha256Hex } from '../src/lib/hash';
import { call } from './reports-helpers';

export interface MintedExport {
  id: string;
  url: string;
  json_url: string;
  operation: string;
  params: Record<string, string>;
  expires_at: string;
}

export function postExport(body: unknown, key: string | null = 'demo_pro_single') {
  return call('/exports/links', { key, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

export async function mintExport(body: Record<string, unknown>, key = 'demo_pro_single'): Promise<MintedExport> {
  const response = await postExport(body, key);
  if (response.status !== 201) throw new Error(`mint ${JSON.stringify(body)}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { link: MintedExport }).link;
}

/** The path of a link's URL (`/x/<token>.csv`). */
export const pathOf = (url: string) => new URL(url).pathname;

/** Reads a CSV link: status, headers and the records parsed back with a real CSV parser (header row as keys). */
export async function readCsv(url: string) {
  const response = await call(pathOf(url));
  const text = await response.text();
  const ok = response.status === 200;
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    disposition: response.headers.get('content-disposition'),
    text,
    header: ok ? (parse(text, { to: 1 }) as string[][])[0]! : [],
    records: ok ? (parse(text, { columns: true }) as Record<string, string>[]) : [],
  };
}

/** A key of demo_pro_single's account that no other test has used: its own cache entries and gate budget. */
export async function accountKey(label: string): Promise<string> {
  const key = `exports_${label}_${crypto.randomUUID()}`;
  await env.DB.prepare("INSERT OR IGNORE INTO api_keys (account_id, key_hash, label, created_at) VALUES (1, ?, 'exports test', '2026-01-01T00:00:00Z')")
    .bind(await sha256Hex(key))
    .run();
  return key;
}

export const gateOf = async (key: string) => env.UPSTREAM_GATE.get(env.UPSTREAM_GATE.idFromName(await sha256Hex(key)));
