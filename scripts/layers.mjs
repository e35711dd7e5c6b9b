// The layers of DESIGN section 2 (docs/architecture.md), as data, and the check
// that holds the code to them. `npm test` runs scripts/check-layers.mjs, which
// reads every import of src/ and emails/ and fails on an import that runs up
// or sideways, or on a cycle between folders.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Lowest first. A folder imports only from folders of a lower tier; folders of
 * one tier are siblings and never import each other. `lib` (tools with no
 * product knowledge) sits under `contract`, which hashes and parses with it.
 * DESIGN puts
 * `weekly-report` and `mail` side by side (layer 5); the templates of
 * `emails/` sit between them: they render the weekly-report model, and the
 * mailer renders them.
 */
export const TIERS = [
  ['src/lib'],
  ['src/contract'],
  ['src/origin'],
  ['src/client'],
  ['src/discovery'],
  ['src/proxy'],
  ['src/weekly-report'],
  ['src/views'],
  ['emails'],
  ['src/mail'],
  ['src/subscriptions'],
  ['src/links'],
  ['src/digests', 'src/reports', 'src/alerts', 'src/exports', 'src/mcp'],
  ['src/account'],
  ['src/app'],
  ['src/index.ts'],
];

/** Imports that the tiers allow but the design forbids: the published `./client` carries no D1 code. */
export const FORBIDDEN = [{ from: 'src/client', to: 'src/origin', why: 'the published ./client must not bundle the D1 origin' }];

const tierOf = new Map(TIERS.flatMap((folders, tier) => folders.map((folder) => [folder, tier])));

/** The layer folder a repository path belongs to, or undefined (node_modules, a package). */
export function folderOf(file) {
  const parts = file.split('/');
  for (const depth of [2, 1]) {
    const candidate = parts.slice(0, depth).join('/');
    if (tierOf.has(candidate)) return candidate;
  }
  return undefined;
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The relative import specifiers of one source text (value and type imports, re-exports, dynamic imports). */
export function importsOf(text) {
  const found = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2];
    if (spec.startsWith('.')) found.push(spec);
  }
  return found;
}

/**
 * Checks a set of files, `{ path, text }` with repository paths. Returns the
 * problems, one line each; empty when the layers hold.
 */
export function checkLayers(files) {
  const problems = [];
  const edges = new Map();
  for (const file of files) {
    const from = folderOf(file.path);
    if (!from) {
      problems.push(`${file.path}: not in any layer folder (add it to TIERS in scripts/layers.mjs)`);
      continue;
    }
    for (const spec of importsOf(file.text)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file.path), spec));
      const to = folderOf(target);
      if (to === from) continue;
      if (!to) {
        problems.push(`${file.path}: imports ${spec}, outside every layer`);
        continue;
      }
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from).add(to);
      const rule = FORBIDDEN.find((r) => r.from === from && r.to === to);
      if (rule) problems.push(`${file.path}: imports ${spec} (${to}): ${rule.why}`);
      else if (tierOf.get(to) > tierOf.get(from)) problems.push(`${file.path}: imports ${spec}, which runs up from ${from} to ${to}`);
      else if (tierOf.get(to) === tierOf.get(from)) problems.push(`${file.path}: imports ${spec}, a sibling: ${from} and ${to} are one layer`);
    }
  }
  for (const cycle of cyclesOf(edges)) problems.push(`folders import each other: ${cycle.join(' -> ')}`);
  return problems;
}

/** Cycles of the folder graph (depth-first; each reported once, from its first folder). */
function cyclesOf(edges) {
  const cycles = [];
  const done = new Set();
  const visit = (node, trail) => {
    const at = trail.indexOf(node);
    if (at >= 0) {
      cycles.push([...trail.slice(at), node]);
      return;
    }
    if (done.has(node)) return;
    for (const next of edges.get(node) ?? []) visit(next, [...trail, node]);
    done.add(node);
  };
  for (const node of edges.keys()) visit(node, []);
  return cycles;
}

/** The source files of src/ and emails/ (tests and fixtures aside), with repository paths. */
export function sourceFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(path.join(root, dir))) {
      const rel = `${dir}/${name}`;
      if (statSync(path.join(root, rel)).isDirectory()) {
        if (name !== '_fixtures') walk(rel);
      } else if (/\.tsx?$/.test(name) && !/\.(test|d)\.tsx?$/.test(name)) {
        out.push({ path: rel, text: readFileSync(path.join(root, rel), 'utf8') });
      }
    }
  };
  walk('src');
  walk('emails');
  return out;
}
