#!/usr/bin/env node
// Run by `npm test` and `npm run check`: the docs name only what exists. In every Markdown file of the repository
// (docs/history.md aside: it records what was true on its day), each path from the root (`src/x/y.ts`,
// `docs/a.md`) and each relative link (`](../x)`) is a file or folder. In every tracked text file, each
// `npm run NAME` is a script of package.json, and each `npm run bench -- NAME`, `npm run check -- NAME` and
// `npm test -- NAME` a name scripts/bench.mjs, scripts/check.mjs or scripts/test.mjs knows. A folder README's
// `**May import**` line is what TIERS and FORBIDDEN of scripts/layers.mjs allow (`mayImport`). Counts in prose
// ("N operations") are not checked. One line per problem, as file:line.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { FORBIDDEN, TIERS } from './layers.mjs';

const SELF = 'scripts/check-docs.mjs';
const HISTORY = 'docs/history.md';
const scripts = new Set(Object.keys(JSON.parse(readFileSync('package.json', 'utf8')).scripts));
/** The names a dispatcher prints with --list, one a line (the first word of each). */
const listed = (script) =>
  new Set(
    execFileSync(process.execPath, [script, '--list'], { encoding: 'utf8' })
      .split('\n')
      .map((line) => line.trim().split(/\s+/)[0])
      .filter((word) => /^[a-z][\w-]*$/.test(word)),
  );
const SUB = { bench: listed('scripts/bench.mjs'), check: listed('scripts/check.mjs'), test: listed('scripts/test.mjs') };

const ROOTED = /(?<![\w./-])((?:src|test|scripts|docs|emails|migrations|public|\.ci)\/[\w./-]*[\w-]\.(?:ts|tsx|mjs|js|md|sql|json|toml|css|html))(?![\w.])/g;
const LINK = /\]\(([^)#\s]+)(?:#[^)]*)?\)/g;
const NPM_RUN = /npm run (?:-s |--silent )?([a-z][\w:-]*)(?: -- ([a-z][\w-]*))?/g;
const NPM_TEST = /npm test -- ([a-z][\w-]*)/g;

/** The problems in `text` of `file`, each as `file:line: what`. */
function problemsIn(file, text) {
  const found = [];
  text.split('\n').forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    if (file.endsWith('.md')) {
      for (const [, name] of line.matchAll(ROOTED)) if (!existsSync(name)) found.push(`${at}: names \`${name}\`, which is not a file`);
      for (const [, link] of line.matchAll(LINK)) {
        if (/^[a-z][\w+.-]*:/i.test(link)) continue;
        if (!existsSync(path.join(path.dirname(file), link))) found.push(`${at}: links to \`${link}\`, which is not a file`);
      }
    }
    for (const [, name, sub] of line.matchAll(NPM_RUN)) {
      if (!scripts.has(name)) found.push(`${at}: \`npm run ${name}\` is not a script of package.json`);
      else if (sub && SUB[name] && !SUB[name].has(sub)) found.push(`${at}: \`npm run ${name} -- ${sub}\`: scripts/${name}.mjs has no ${sub}`);
    }
    for (const [, sub] of line.matchAll(NPM_TEST)) if (!SUB.test.has(sub)) found.push(`${at}: \`npm test -- ${sub}\`: scripts/test.mjs has no ${sub}`);
  });
  return found;
}

/** The `**May import**` line of `folder`'s README, from the layers. */
export function mayImport(folder) {
  const tier = TIERS.findIndex((folders) => folders.includes(folder));
  const forbidden = FORBIDDEN.filter((rule) => rule.from === folder).map((rule) => rule.to);
  const below = TIERS.slice(0, tier)
    .flat()
    .filter((f) => !forbidden.includes(f));
  const siblings = TIERS[tier].filter((f) => f !== folder);
  const code = (fs) => fs.map((f) => `\`${f}\``).join(', ');
  let line = `**May import** (scripts/layers.mjs): ${below.length ? code(below) : 'nothing else in `src/`'}`;
  if (forbidden.length) line += `; never ${code(forbidden)}`;
  if (siblings.length) line += `; not its siblings ${code(siblings)}`;
  return `${line}.`;
}

// The check must catch what it guards against.
const planted = problemsIn('docs/planted.md', 'See src/gone.ts, [x](gone.md), `npm run gone`, `npm run bench -- gone`, npm test -- gone; src/index.ts and [tests](tests.md) exist.');
if (planted.length !== 5) {
  console.error(`check-docs: the planted problems were not all found (${planted.length} of 5):\n  ${planted.join('\n  ')}`);
  process.exit(1);
}

const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { encoding: 'utf8' })
  .split('\n')
  .filter((file) => file && existsSync(file) && file !== SELF && file !== HISTORY && !file.includes('node_modules/'))
  .filter((file) => /\.(md|ts|tsx|mjs|toml|jsonc|json|example)$|(^|\/)run$/.test(file) && !file.startsWith('dist/'));
const problems = files.flatMap((file) => problemsIn(file, readFileSync(file, 'utf8')));
for (const folder of TIERS.flat()) {
  const file = `${folder}/README.md`;
  if (!existsSync(file)) continue;
  const lines = readFileSync(file, 'utf8').split('\n');
  const at = lines.findIndex((line) => line.startsWith('**May import**'));
  if (at !== -1 && lines[at] !== mayImport(folder)) problems.push(`${file}:${at + 1}: the May import line is not what scripts/layers.mjs allows; it is:\n    ${mayImport(folder)}`);
}
if (problems.length > 0) {
  console.error(`check-docs: ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-docs: every path, link and npm script named in ${files.length} files exists (and the 5 planted ones that do not were found).`);
