/**
 * Each test file starts from the storage as the demo load left it. The files of one worker share one Worker and its
 * storage (`isolate: false`, vitest.config.ts), so before every file but the worker's first, `startFile` puts back:
 * - the D1 tables the load left empty (the product's own: subscriptions, links, sessions, alerts, ...), emptied;
 * - the rows of the demo tables a file wrote, copied back from a copy taken at the load (triggers note the primary
 *   key of every row inserted, updated or deleted): a pre-seeded database restored per file, row by row, where
 *   generating the demo data again takes about 18 s and copying back the biggest tables whole about 9 s;
 * - both KV namespaces, emptied (the cache's entries, the upstream map, OAuth's grants);
 * - the proxy's cache, purged in every tier (its isolate's memory and the Cache API, which no binding lists).
 */
import { env, SELF } from 'cloudflare:test';
import { toDay } from '../src/contract/window';
import { isEmpty, seedDemo } from '../src/origin/demo/load';
import { forgetUpstreamMap } from '../src/proxy/upstream-map';
import { kvKeys, tableNames } from './helpers';

/** Where the triggers note the rows a file wrote (table and primary key); a test's own table, which the product never reads. */
export const DEMO_WRITES = 'test_demo_writes';

/** What the worker's first file recorded: the tables the demo load filled (with their primary keys) and those it left empty. */
interface Loaded {
  demoTables: ReadonlyMap<string, readonly string[]>;
  emptyTables: readonly string[];
}

const worker = globalThis as unknown as { loaded?: Loaded };

/** Loads the demo data in the worker's first file, or puts the storage back as that load left it in every later one. */
export async function startFile(): Promise<void> {
  if (worker.loaded === undefined) worker.loaded = await load();
  else await restoreStorage();
}

/** The storage as the demo load left it; returns the demo tables a file had written (and so were copied back). */
export async function restoreStorage(): Promise<string[]> {
  const loaded = worker.loaded;
  if (loaded === undefined) throw new Error('restoreStorage before the demo load');
  const purge = await SELF.fetch('http://localhost/admin/cache/purge', {
    method: 'POST',
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ all: true }),
  });
  if (purge.status !== 200) throw new Error(`the per-file reset could not purge the cache: ${purge.status} ${await purge.text()}`);
  for (const kv of [env.CACHE, env.OAUTH_KV]) for await (const key of kvKeys(kv)) await kv.delete(key.name);
  forgetUpstreamMap();

  const { results } = await env.DB.prepare(`SELECT DISTINCT name FROM ${DEMO_WRITES} ORDER BY name`).all<{ name: string }>();
  const written = results.map(({ name }) => name);
  // One transaction; its foreign keys are checked at its end, when every table is as loaded. The copying back
  // notes its own rows too, which the last statement forgets.
  await env.DB.batch([
    env.DB.prepare('PRAGMA defer_foreign_keys = on'),
    ...loaded.emptyTables.map((table) => env.DB.prepare(`DELETE FROM "${table}"`)),
    ...written.flatMap((table) => {
      const key = loaded.demoTables.get(table);
      if (!key) throw new Error(`the per-file reset noted a write to ${table}, which is not a demo table`);
      const noted = notedRows(table, key);
      return [env.DB.prepare(`DELETE FROM "${table}" WHERE ${noted}`), env.DB.prepare(`INSERT INTO "${table}" SELECT * FROM "${copyOf(table)}" WHERE ${noted}`)];
    }),
    env.DB.prepare(`DELETE FROM ${DEMO_WRITES}`),
  ]);
  return written;
}

async function load(): Promise<Loaded> {
  if (await isEmpty(env.DB)) await seedDemo(env.DB, { today: toDay(new Date()) });
  const tables = await tableNames();
  const filled = await Promise.all(tables.map(async (name) => (await env.DB.prepare(`SELECT 1 FROM "${name}" LIMIT 1`).first()) !== null));
  const demoTables = new Map(
    await Promise.all(
      tables
        .filter((_, i) => filled[i])
        .map(async (table) => {
          const { results } = await env.DB.prepare(`PRAGMA table_info("${table}")`).all<{ name: string; pk: number }>();
          const key = results.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk);
          if (key.length === 0) throw new Error(`the per-file reset needs a primary key on the demo table ${table}`);
          return [table, key.map((column) => column.name)] as const;
        }),
    ),
  );
  await env.DB.batch([
    env.DB.prepare(`CREATE TABLE ${DEMO_WRITES} (name TEXT NOT NULL, key TEXT NOT NULL)`),
    ...[...demoTables].flatMap(([table, key]) => [
      env.DB.prepare(`CREATE TABLE "${copyOf(table)}" AS SELECT * FROM "${table}"`),
      env.DB.prepare(`CREATE UNIQUE INDEX "${copyOf(table)}_key" ON "${copyOf(table)}" (${columns(key)})`),
      ...watch(table, key),
    ]),
  ]);
  return { demoTables, emptyTables: tables.filter((_, i) => !filled[i]) };
}

/** The triggers that note in DEMO_WRITES the key of every row of `table` inserted, updated (before and after) or deleted. */
function watch(table: string, key: readonly string[]): D1PreparedStatement[] {
  const note = (row: 'NEW' | 'OLD') => `INSERT INTO ${DEMO_WRITES} (name, key) VALUES ('${table}', json_array(${key.map((column) => `${row}."${column}"`).join(', ')}));`;
  return [
    ['INSERT', note('NEW')],
    ['UPDATE', `${note('OLD')} ${note('NEW')}`],
    ['DELETE', note('OLD')],
  ].map(([event, body]) => env.DB.prepare(`CREATE TRIGGER "${DEMO_WRITES}_${table}_${event}" AFTER ${event} ON "${table}" BEGIN ${body} END`));
}

/** An SQL condition: the row's key is one DEMO_WRITES noted for `table`. */
const notedRows = (table: string, key: readonly string[]) => `(${columns(key)}) IN (SELECT ${key.map((_, i) => `key ->> ${i}`).join(', ')} FROM ${DEMO_WRITES} WHERE name = '${table}')`;

/** A key's columns, quoted, for SQL. */
const columns = (key: readonly string[]) => key.map((column) => `"${column}"`).join(', ');

/** The copy of a demo table as loaded, which a reset copies back. */
const copyOf = (table: string) => `test_loaded_${table}`;
