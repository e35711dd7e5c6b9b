#!/usr/bin/env node
// `node scripts/styled-service.mjs --seed N [--port 8790] [--origin URL]`: another implementation of the Read API, in a
// house style drawn from seed N by the tests' generator (test/styles/generator.ts), on loopback: for trying discovery
// in front of a service no test built (docs/upstream.md, "In front of a service no test built"). Each request goes to
// the origin (by default the embedded reference origin of `npm run dev`, http://localhost:8787/origin/api/v1) with its
// key, and each 200 body comes back written in the style; an operation the style lacks answers 404 `not_found`.
import http from 'node:http';
import { parseArgs } from 'node:util';
import { importTs } from './import-ts.mjs';

const { values: args } = parseArgs({ options: { seed: { type: 'string' }, port: { type: 'string', default: '8790' }, origin: { type: 'string', default: 'http://localhost:8787/origin/api/v1' } } });
const seed = Number(args.seed);
if (!Number.isInteger(seed) || seed < 1) {
  console.error('usage: node scripts/styled-service.mjs --seed N [--port 8790] [--origin http://localhost:8787/origin/api/v1]   (N >= 1)');
  process.exit(2);
}
const { applyStyle, describeStyle, styleOf, styleOmits, matchOperation, API_BASE } = await importTs(
  "export { applyStyle, describeStyle, styleOf, styleOmits } from './test/styles/generator.ts'; export { matchOperation } from './src/contract/request.ts'; export { API_BASE } from './src/contract/operations.ts';",
  { name: 'styled-service' },
);
const style = styleOf(seed);
const origin = args.origin.replace(/\/$/, '');

const send = (response, status, body, headers = {}) => {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(typeof body === 'string' ? body : JSON.stringify(body));
};
const notFound = (message) => ({ error: { code: 'not_found', message } });

const server = http.createServer(async (request, response) => {
  try {
    const url = new URL(request.url ?? '/', 'http://styled.local');
    const match = url.pathname.startsWith(API_BASE) ? matchOperation(url.pathname) : undefined;
    if (!match || request.method !== 'GET') return send(response, 404, notFound(`No operation at ${url.pathname}.`));
    const id = match.op.id;
    if (styleOmits(style, id)) return send(response, 404, notFound(`This service has no ${url.pathname.slice(API_BASE.length)}.`));
    const upstream = await fetch(`${origin}${url.pathname.slice(API_BASE.length)}${url.search}`, { headers: { authorization: request.headers.authorization ?? '' } });
    // The budget's headers pass through: discovery paces itself by them.
    const headers = Object.fromEntries(
      ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after'].flatMap((name) => (upstream.headers.has(name) ? [[name, upstream.headers.get(name)]] : [])),
    );
    const text = await upstream.text();
    if (upstream.status !== 200) return send(response, upstream.status, text, headers);
    send(response, 200, applyStyle(style, id, JSON.parse(text)), headers);
  } catch (error) {
    send(response, 502, { error: { code: 'upstream_error', message: `The origin did not answer: ${error?.message ?? error}` } });
  }
});
server.listen(Number(args.port), '127.0.0.1', () => {
  console.log(`A service in the house style of seed ${seed} (${describeStyle(style)}) at http://127.0.0.1:${args.port}${API_BASE}, reading ${origin}.`);
});
