// A fake of the Cloudflare API on loopback, for `scripts/check-deploy.mjs`: the endpoints `wrangler` calls
// for `npm run deploy` (scripts/deploy.mjs) and nothing more, with the state they change (KV namespaces, D1
// databases and their migrations table, queues, the Worker's versions, bindings and secrets). Every call is
// recorded as "METHOD /path" (under /accounts/<id>, the account part dropped) so the check can assert which
// calls were made and in what order. An endpoint it does not know answers 404 and is recorded as unknown.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

export const ACCOUNT_ID = 'f1f2f3f4f5f6f7f8f9f0fafbfcfdfeff';
const SUBDOMAIN = 'deploy-check';

const ok = (result, extra = {}) => ({ success: true, errors: [], messages: [], result, ...extra });
const fail = (code, message) => ({ success: false, errors: [{ code, message }], messages: [], result: null });
const hex = () => randomUUID().replaceAll('-', '');

/** Reads a request's body as a Buffer. */
const bodyOf = (request) =>
  new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });

/** The JSON `metadata` part of a multipart Worker upload (the form wrangler builds). */
function uploadMetadata(request, body) {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(request.headers['content-type'] ?? '');
  if (!boundary) return undefined;
  for (const part of body.toString('latin1').split(`--${boundary[1] ?? boundary[2]}`)) {
    if (/name="metadata"/.test(part)) return JSON.parse(part.slice(part.indexOf('\r\n\r\n') + 4).replace(/\r\n$/, ''));
  }
  return undefined;
}

export class FakeCloudflare {
  /** "METHOD /path" of every call, in order. */
  calls = [];
  unknown = [];
  kv = [];
  d1 = [];
  queues = [];
  /** The Worker: `undefined` until its first upload. */
  script;
  /** Secret name → value, as the Worker would read them. */
  secrets = {};
  /** The metadata of every Worker upload, in order. */
  uploads = [];
  /** Asset hashes the account holds. */
  assets = new Set();

  /** The deployed version as `wrangler versions view --json` reads it: its bindings, secrets without their values. */
  version() {
    return {
      id: this.script.versionId,
      number: this.script.versions,
      metadata: { created_on: '2026-11-26T12:00:00Z', author_email: 'deploy-check@example.com', source: 'wrangler' },
      annotations: {},
      resources: { script: { handlers: ['fetch', 'scheduled', 'queue', 'email'] }, script_runtime: { compatibility_date: '2026-11-01' }, bindings: this.bindings() },
    };
  }

  bindings() {
    return this.script.bindings.map(({ text, ...binding }) => (binding.type === 'secret_text' ? binding : { ...binding, ...(text === undefined ? {} : { text }) }));
  }

  /**
   * A Worker upload (PUT of the script, or POST of a version): its metadata's bindings, an `inherit` one taking the
   * deployed binding of that name, and the secrets kept as deployments keep them (never deleted, overwritten when
   * sent again).
   */
  upload(metadata, name) {
    const before = this.script?.bindings ?? [];
    const bindings = metadata.bindings.map((binding) => (binding.type === 'inherit' ? before.find((old) => old.name === binding.name) : binding)).filter(Boolean);
    for (const old of before) if (old.type === 'secret_text' && !bindings.some((binding) => binding.name === old.name)) bindings.push(old);
    for (const binding of metadata.bindings) if (binding.type === 'secret_text') this.secrets[binding.name] = binding.text;
    this.script = {
      name,
      tag: this.script?.tag ?? hex(),
      deploymentId: hex(),
      versionId: randomUUID(),
      versions: (this.script?.versions ?? 0) + 1,
      bindings,
      metadata,
      migrationTag: metadata.migrations?.new_tag ?? this.script?.migrationTag,
    };
    this.uploads.push(metadata);
    return { id: name, etag: hex(), deployment_id: this.script.versionId, startup_time_ms: 10, resources: { script: { etag: hex() } } };
  }

  async start() {
    this.server = createServer((request, response) => this.#serve(request, response).catch((error) => this.#send(response, 500, fail(10000, String(error)))));
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${this.server.address().port}/client/v4`;
    return this;
  }

  stop() {
    return new Promise((resolve) => this.server.close(resolve));
  }

  #send(response, status, body) {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  }

  async #serve(request, response) {
    const url = new URL(request.url, 'http://127.0.0.1');
    const body = await bodyOf(request);
    const path = url.pathname.replace(/^\/client\/v4/, '').replace(`/accounts/${ACCOUNT_ID}`, '');
    const call = `${request.method} ${path}`;
    this.calls.push(call);
    const send = (status, payload) => this.#send(response, status, payload);
    const json = () => JSON.parse(body.toString('utf8') || '{}');
    const assetUpload = path === '/workers/assets/upload' && request.headers.authorization === 'Bearer fake-upload-jwt';
    if (!assetUpload && request.headers.authorization !== `Bearer ${this.token}`) return send(401, fail(10000, 'Authentication error'));
    const route = ROUTES.find(([method, pattern]) => method === request.method && pattern.test(path));
    if (!route) {
      this.unknown.push(`${call}${url.search}`);
      return send(404, fail(7003, `No route for that URI (fake: ${call})`));
    }
    const [status, payload] = await route[2].call(this, { match: route[1].exec(path), url, body, json, request });
    return send(status, payload);
  }
}

/** [method, path pattern (under the account), handler returning [status, body]]. */
const ROUTES = [
  ['GET', /^\/memberships$/, () => [200, ok([{ id: 'm1', account: { id: ACCOUNT_ID, name: 'Deploy check' } }])]],
  ['GET', /^\/accounts$/, () => [200, ok([{ id: ACCOUNT_ID, name: 'Deploy check' }])]],
  ['GET', /^\/user$/, () => [200, ok({ id: 'u1', email: 'deploy-check@example.com' })]],
  ['GET', /^\/user\/tokens\/verify$/, () => [200, ok({ id: 't1', status: 'active' })]],
  // KV namespaces
  [
    'GET',
    /^\/storage\/kv\/namespaces$/,
    function () {
      return [200, ok(this.kv, { result_info: { page: 1, per_page: 100, count: this.kv.length, total_count: this.kv.length } })];
    },
  ],
  [
    'POST',
    /^\/storage\/kv\/namespaces$/,
    function ({ json }) {
      const { title } = json();
      if (this.kv.some((ns) => ns.title === title)) return [400, fail(10014, 'A namespace with this account ID and title already exists.')];
      const namespace = { id: hex(), title };
      this.kv.push(namespace);
      return [200, ok(namespace)];
    },
  ],
  // D1
  [
    'GET',
    /^\/d1\/database$/,
    function () {
      return [
        200,
        ok(
          this.d1.map(({ uuid, name }) => ({ uuid, name, version: 'production' })),
          { result_info: { page: 1, per_page: 1000, count: this.d1.length, total_count: this.d1.length } },
        ),
      ];
    },
  ],
  [
    'POST',
    /^\/d1\/database$/,
    function ({ json }) {
      const { name } = json();
      if (this.d1.some((db) => db.name === name)) return [400, fail(7502, 'A database with that name already exists')];
      const db = { uuid: randomUUID(), name, migrations: [], statements: 0 };
      this.d1.push(db);
      return [200, ok({ uuid: db.uuid, name, created_in_region: 'WEUR' })];
    },
  ],
  [
    'GET',
    /^\/d1\/database\/([^/]+)$/,
    function ({ match }) {
      const key = decodeURIComponent(match[1]);
      const db = this.d1.find((candidate) => candidate.uuid === key || candidate.name === key);
      return db ? [200, ok({ uuid: db.uuid, name: db.name, version: 'production', num_tables: 0, file_size: 0 })] : [404, fail(7404, `The database ${key} could not be found`)];
    },
  ],
  [
    'POST',
    /^\/d1\/database\/([^/]+)\/query$/,
    function ({ match, json }) {
      const db = this.d1.find((candidate) => candidate.uuid === match[1]);
      if (!db) return [404, fail(7404, 'The database could not be found')];
      return [200, ok(d1Query(db, json().sql))];
    },
  ],
  // Queues
  [
    'GET',
    /^\/queues$/,
    function ({ url }) {
      const names = url.searchParams.getAll('name');
      const queues = this.queues.filter((queue) => names.length === 0 || names.includes(queue.queue_name));
      return [200, ok(queues, { result_info: { page: 1, per_page: 100, count: queues.length, total_count: queues.length, total_pages: 1 } })];
    },
  ],
  [
    'POST',
    /^\/queues$/,
    function ({ json }) {
      const { queue_name } = json();
      if (this.queues.some((queue) => queue.queue_name === queue_name)) return [400, fail(11009, 'A queue with this name already exists')];
      const queue = {
        queue_id: hex(),
        queue_name,
        created_on: '2026-11-26T12:00:00Z',
        modified_on: '2026-11-26T12:00:00Z',
        producers: [],
        producers_total_count: 0,
        consumers: [],
        consumers_total_count: 0,
      };
      this.queues.push(queue);
      return [200, ok(queue)];
    },
  ],
  // The Worker
  [
    'GET',
    /^\/workers\/services\/([^/]+)$/,
    function () {
      if (!this.script) return [404, fail(10007, 'This Worker does not exist on your account.')];
      return [200, ok({ id: this.script.name, default_environment: { environment: 'production', script: { id: this.script.name, tag: this.script.tag, tags: [], last_deployed_from: 'wrangler' } } })];
    },
  ],
  [
    'GET',
    /^\/workers\/scripts\/([^/]+)\/deployments$/,
    function () {
      if (!this.script) return [404, fail(10007, 'This Worker does not exist on your account.')];
      return [
        200,
        ok({
          deployments: [
            { id: this.script.deploymentId, source: 'wrangler', strategy: 'percentage', created_on: '2026-11-26T12:00:00Z', versions: [{ version_id: this.script.versionId, percentage: 100 }] },
          ],
        }),
      ];
    },
  ],
  [
    'GET',
    /^\/workers\/scripts\/([^/]+)\/versions\/([^/]+)$/,
    function ({ match }) {
      if (!this.script || match[2] !== this.script.versionId) return [404, fail(10007, 'This Worker does not exist on your account.')];
      return [200, ok(this.version())];
    },
  ],
  [
    'GET',
    /^\/workers\/scripts\/([^/]+)\/secrets$/,
    function () {
      if (!this.script) return [404, fail(10007, 'This Worker does not exist on your account.')];
      return [200, ok(this.script.bindings.filter((binding) => binding.type === 'secret_text').map(({ name, type }) => ({ name, type })))];
    },
  ],
  [
    'GET',
    /^\/workers\/scripts$/,
    function () {
      return [200, ok(this.script ? [{ id: this.script.name, tag: this.script.tag, migration_tag: this.script.migrationTag, handlers: ['fetch'] }] : [])];
    },
  ],
  [
    'POST',
    /^\/workers\/scripts\/([^/]+)\/assets-upload-session$/,
    function ({ json }) {
      const hashes = Object.values(json().manifest).map((entry) => entry.hash);
      const missing = hashes.filter((hash) => !this.assets.has(hash));
      return [200, ok({ jwt: missing.length ? 'fake-upload-jwt' : 'fake-completion-jwt', buckets: missing.length ? [missing] : [] })];
    },
  ],
  [
    'POST',
    /^\/workers\/assets\/upload$/,
    function ({ request, body }) {
      const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(request.headers['content-type'] ?? '');
      for (const [, hash] of body.toString('latin1').matchAll(/name="([0-9a-f]{32})"/g)) this.assets.add(hash);
      return [201, ok({ jwt: boundary ? 'fake-completion-jwt' : null })];
    },
  ],
  [
    'PUT',
    /^\/workers\/scripts\/([^/]+)$/,
    function ({ match, request, body }) {
      return [200, ok(this.upload(uploadMetadata(request, body), match[1]))];
    },
  ],
  [
    'POST',
    /^\/workers\/scripts\/([^/]+)\/versions$/,
    function ({ match, request, body }) {
      const result = this.upload(uploadMetadata(request, body), match[1]);
      return [200, ok({ id: result.deployment_id, number: this.script.versions, resources: { script: { etag: result.etag } }, startup_time_ms: 10 })];
    },
  ],
  [
    'POST',
    /^\/workers\/scripts\/([^/]+)\/deployments$/,
    function () {
      return [200, ok({ id: this.script.deploymentId, versions: [{ version_id: this.script.versionId, percentage: 100 }] })];
    },
  ],
  ['PATCH', /^\/workers\/scripts\/([^/]+)\/script-settings$/, () => [200, ok({})]],
  [
    'GET',
    /^\/workers\/scripts\/([^/]+)\/subdomain$/,
    function () {
      return [200, ok({ enabled: Boolean(this.script?.workersDev), previews_enabled: false })];
    },
  ],
  [
    'POST',
    /^\/workers\/scripts\/([^/]+)\/subdomain$/,
    function ({ json }) {
      this.script.workersDev = json().enabled;
      return [200, ok({ enabled: json().enabled, previews_enabled: json().previews_enabled })];
    },
  ],
  [
    'GET',
    /^\/workers\/workers\/([^/]+)$/,
    function ({ match }) {
      if (!this.script) return [404, fail(10007, 'This Worker does not exist on your account.')];
      const enabled = Boolean(this.script.workersDev);
      return [200, ok({ id: this.script.tag, name: match[1], subdomain: { enabled, previews_enabled: false, ...(enabled ? { url: `https://${match[1]}.${SUBDOMAIN}.workers.dev` } : {}) } })];
    },
  ],
  ['GET', /^\/workers\/subdomain$/, () => [200, ok({ subdomain: SUBDOMAIN })]],
  [
    'PUT',
    /^\/workers\/scripts\/([^/]+)\/schedules$/,
    function ({ json }) {
      this.script.schedules = json();
      return [200, ok({ schedules: json() })];
    },
  ],
  [
    'GET',
    /^\/workers\/scripts\/([^/]+)\/schedules$/,
    function () {
      return [200, ok({ schedules: this.script?.schedules ?? [] })];
    },
  ],
  [
    'GET',
    /^\/queues\/([^/]+)\/consumers$/,
    function ({ match }) {
      return [200, ok(this.queues.find((queue) => queue.queue_id === match[1])?.consumers ?? [])];
    },
  ],
  [
    'POST',
    /^\/queues\/([^/]+)\/consumers$/,
    function ({ match, json }) {
      const queue = this.queues.find((candidate) => candidate.queue_id === match[1]);
      if (!queue) return [404, fail(11000, 'Queue not found')];
      // The API answers with the Worker as `script`; wrangler finds an existing consumer by it.
      const { script_name, ...rest } = json();
      const consumer = { consumer_id: hex(), ...rest, script: script_name };
      queue.consumers.push(consumer);
      queue.consumers_total_count = queue.consumers.length;
      return [200, ok(consumer)];
    },
  ],
  [
    'PUT',
    /^\/queues\/([^/]+)\/consumers\/([^/]+)$/,
    function ({ match, json }) {
      const queue = this.queues.find((candidate) => candidate.queue_id === match[1]);
      const consumer = queue?.consumers.find((candidate) => candidate.consumer_id === match[2]);
      if (!consumer) return [404, fail(11000, 'Consumer not found')];
      Object.assign(consumer, json());
      return [200, ok(consumer)];
    },
  ],
  [
    'GET',
    /^\/workers\/scripts\/([^/]+)\/settings$/,
    function () {
      if (!this.script) return [404, fail(10007, 'This Worker does not exist on your account.')];
      return [200, ok({ bindings: this.bindings(), compatibility_date: '2026-11-01', logpush: false, tail_consumers: null })];
    },
  ],
];

/** The statements `wrangler d1 migrations apply` sends, answered from the database's list of applied migrations. */
function d1Query(db, sql) {
  db.statements++;
  const result = (results) => [{ results, success: true, meta: { changes: 0, duration: 1 } }];
  if (/^SELECT \*\s+FROM "d1_migrations"/.test(sql)) return result(db.migrations.map((name, i) => ({ id: i + 1, name, applied_at: '2026-11-26 12:00:00' })));
  for (const [, name] of sql.matchAll(/INSERT INTO "d1_migrations" \(name\)\s+values \('([^']+)'\);/g)) db.migrations.push(name);
  return result([]);
}
