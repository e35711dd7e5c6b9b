// The layers of DESIGN section 2 (docs/architecture.md), as data, and the check
// that holds the code to them. `npm test` runs scripts/check-layers.mjs, which
// reads every import of src/ and emails/ and fails on an import that runs up
// or sideways, on a cycle between folders, or on a circle between files (type
// imports count: a circle of types is a circle of what depends on what).
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
  for (const circle of fileCirclesOf(files)) problems.push(`files import each other: ${circle.join(' -> ')}`);
  return problems;
}

/** The file a relative import of `from` names, among `paths` (TypeScript's resolution: the extension or `/index` left out). */
function resolveIn(paths, from, spec) {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  return [target, `${target}.ts`, `${target}.tsx`, `${target}/index.ts`, `${target}/index.tsx`].find((candidate) => paths.has(candidate));
}

/**
 * The circles of the file graph, every import counted (value, type, re-export, dynamic): one per strongly
 * connected group of files (Tarjan), as one circle through its first file, so a tangle is one line.
 */
export function fileCirclesOf(files) {
  const paths = new Set(files.map((f) => f.path));
  const importedBy = (f) => new Set(importsOf(f.text).map((spec) => resolveIn(paths, f.path, spec)));
  const next = new Map(files.map((f) => [f.path, [...importedBy(f)].filter(Boolean)]));
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  const connect = (node) => {
    index.set(node, index.size);
    low.set(node, index.get(node));
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node)) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)));
    }
    if (low.get(node) !== index.get(node)) return;
    const group = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1 || next.get(node).includes(node)) groups.push(group);
  };
  for (const file of paths) if (!index.has(file)) connect(file);
  return groups.map((group) => circleThrough(group.sort()[0], new Set(group), next));
}

/** The shortest circle from `start` back to it within `group` (breadth-first). */
function circleThrough(start, group, next) {
  const cameFrom = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const to of next.get(node)) {
      if (!group.has(to)) continue;
      if (to === start) {
        const circle = [start];
        for (let at = node; at !== start; at = cameFrom.get(at)) circle.splice(1, 0, at);
        return [...circle, start];
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
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
