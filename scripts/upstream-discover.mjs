#!/usr/bin/env node
// `npm run upstream:discover -- --base URL --key KEY [--out FILE]`: discovering the upstream map from the
// command line, for a Worker not yet deployed. One answer of each operation is read straight from the service
// at --base (its address, ending in /api/v1) with the key, the map is proposed by the code behind
// POST /admin/upstream/discover (src/discovery), the report is printed as JSON, and the proposed map
// (the body of PUT /admin/upstream/map) is written to --out. The key may come from READ_API_KEY instead of
// --key (kept out of the shell's history); it is never printed. docs/upstream.md says how to read the report.
// It keeps within the key's budget: when an answer says none is left (RateLimit) or refuses a read (429), it
// waits for the window (at most MAX_WAIT_S) and goes on; past that it stops, proposes nothing, and says when.
// Only the report goes to stdout (run it as `npm run -s upstream:discover` so npm prints no banner there).
import { leftForAPerson } from './discovery-left.mjs';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { importTs } from './import-ts.mjs';

const USAGE = 'usage: npm run upstream:discover -- --base https://service.example.com/api/v1 --key KEY [--out map.json]   (or READ_API_KEY=KEY instead of --key)';

let options;
try {
  ({ values: options } = parseArgs({ options: { base: { type: 'string' }, key: { type: 'string' }, out: { type: 'string' } } }));
} catch (error) {
  console.error(`${error.message}\n${USAGE}`);
  process.exit(2);
}
const key = options.key ?? process.env.READ_API_KEY;
if (!options.base || !key || !/^https?:\/\//.test(options.base)) {
  console.error(USAGE);
  process.exit(2);
}
/** Whatever is printed, with the key blanked out: a service's error message may quote it (a real key is long enough not to match by chance). */
const safe = (text) => (key.length >= 8 ? String(text).replaceAll(key, '<key>') : String(text));

const { clientReader, createClient, discoverUpstreamMap, KEY_REFUSALS, networkTransport } = await importTs(
  "export { clientReader, discoverUpstreamMap, KEY_REFUSALS } from './src/discovery/discover.ts'; export { createClient, networkTransport } from './src/client/index.ts';",
  { name: 'upstream-discover' },
);

/** The longest wait for the key's budget between reads: one window of the spec's limit, and a little. */
const MAX_WAIT_S = 65;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let report;
try {
  // One try per read: discovery itself waits for the budget (pace), so the client does not wait out a 429 as well.
  const api = createClient({ apiKey: key, baseUrl: options.base, transport: networkTransport, retry: { attempts: 1 } });
  report = await discoverUpstreamMap(clientReader(api), { pace: { sleep, maxWaitSeconds: MAX_WAIT_S }, now: () => new Date() });
} catch (error) {
  console.error(safe(`discovery failed: ${error?.message ?? error}`));
  process.exit(1);
}
console.log(safe(JSON.stringify(report, null, 2)));

if (report.stopped) {
  const { status, code, message, operation, resume_at: resumeAt } = report.stopped;
  console.error(
    safe(
      KEY_REFUSALS.has(code)
        ? `The service refuses this key (${status} ${code}): ${message}`
        : status === 429
          ? `The service refused read ${report.calls} (${operation}) for the key's budget (${status} ${code}), longer than ${MAX_WAIT_S} s: nothing is proposed from refused reads. Go on at ${resumeAt}.`
          : `The service did not answer the first read (${status} ${code}): ${message}`,
    ),
  );
  process.exit(1);
}
const entries = Object.values(report.operations);
const read = entries.filter((entry) => entry.status === 200);
// Everything the map leaves to a person, as the report lists it per operation: a summary that left out the unplaced
// fields said a map was nearly done when a feature could not run with it.
const left = leftForAPerson(report);
const counted = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
console.error(
  `${entries.length} operations: ${read.length} read, ${entries.filter((e) => e.error).length} refused, ${entries.filter((e) => e.skipped).length} skipped; ` +
    `${report.calls} calls${report.waited_seconds ? ` (waited ${report.waited_seconds} s for the key's budget)` : ''}; ${Object.keys(report.map.operations).length} operations with map entries; ` +
    `left for a person: ${counted(left.fields, 'field')} to confirm, ${counted(left.values, 'value')} to confirm, ${counted(left.unplaced, 'unplaced field')}, ${counted(left.unseen, 'unseen path')} (read again when it has data).`,
);
if (options.out) {
  writeFileSync(options.out, `${JSON.stringify(report.map, null, 2)}\n`);
  console.error(`The proposed map is in ${options.out}: PUT it to /admin/upstream/map once the fields to confirm are settled (with "version": the stored map's, if one is stored already).`);
}
// Reads refused for want of a brand: the map is short of those operations, and the run is no success.
if (report.incomplete) {
  console.error(safe(report.incomplete.message));
  process.exit(1);
}
