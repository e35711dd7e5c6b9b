#!/usr/bin/env node
// Run by `npm test`: words that stay true (issue 46 item 6). Every file a comment or a doc names exists: a path
// from the repository's root (`src/contract/params.ts`, `docs/upstream.md`) in any Markdown, TypeScript or
// script file; a relative Markdown link (`[tests](tests.md#…)`) from its own folder; a bare file name in
// backticks (`parts.ts`) somewhere in the tree. Fails with one line per name that is not a file, so a rename or
// a removal fixes its mentions in the same change. Dated records keep what was true on their day: a name in
// one of them is written without its folder once the file is gone.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The folders read, and the root's own files. */
const FOLDERS = ['src', 'test', 'scripts', 'docs', 'emails', 'migrations', '.ci'];
const SKIP = new Set(['node_modules', 'scratch', 'artifacts', '.wrangler']);
/** Names written on purpose for what does not exist (`file name`), each with why; these scripts' own examples are not read. */
const NOT_FILES = new Map([['scripts/check-html.mjs src/planted.ts', "the file name of the HTML check's planted finding"]]);
/** This script and scripts/check-docs.mjs, whose examples name missing files on purpose. */
const SELF = new Set(['scripts/check-words.mjs', 'scripts/check-docs.mjs']);

const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    if (SKIP.has(name)) continue;
    if (statSync(file).isDirectory()) walk(file);
    else files.push(file);
  }
};
for (const folder of FOLDERS) if (existsSync(folder)) walk(folder);
files.push(...readdirSync('.').filter((name) => /\.(md|ts|mjs|toml|jsonc)$/.test(name)));

const READ = /\.(md|ts|tsx|mjs|toml)$/;
const basenames = new Set(files.map((file) => path.basename(file)));
// A path from the root: a folder of the tree, then a name with an extension, not inside a longer word or path.
const ROOTED = /(?<![\w./-])((?:src|test|scripts|docs|emails|migrations|public|\.ci)\/[\w./-]*[\w-]\.(?:ts|tsx|mjs|js|md|sql|json|toml|css|html))(?![\w.])/g;
const LINK = /\]\(([^)#\s]+)(?:#[^)]*)?\)/g;
// A bare file name in backticks (`parts.ts`), or in prose (sign-in.ts): not part of a longer path, a word, a
// Markdown link's target (read above) or a string of code ('out.bundle.mjs'); `.sql` only in backticks, since
// `ctx.storage.sql` is code.
const BARE = /`([\w.-]+\.(?:ts|tsx|mjs|md|sql|toml|jsonc))`|(?<![\w./'"`-]|\]\()([\w-][\w.-]*\.(?:ts|tsx|mjs|md))(?![\w'"`-]|\.\w)/g;

/** The names in `text` (of `file`) that are not files, each as a line to act on. */
function missingIn(file, text) {
  const found = [];
  const missing = (name, how) => {
    if (!NOT_FILES.has(`${file} ${name}`)) found.push(`${file}: ${how} \`${name}\` is not a file`);
  };
  for (const [, name] of text.matchAll(ROOTED)) if (!existsSync(name)) missing(name, 'names');
  if (file.endsWith('.md')) {
    for (const [, link] of text.matchAll(LINK)) if (!/^[a-z][\w+.-]*:/i.test(link) && !existsSync(path.join(path.dirname(file), link))) missing(link, 'links to');
  }
  for (const [, quoted, prose] of text.matchAll(BARE)) for (const name of [quoted ?? prose]) if (!basenames.has(name) && !existsSync(name)) missing(name, 'names');
  return found;
}

// The check must catch what it guards against: a removed file named each way, beside names that exist.
const planted = missingIn(
  'docs/planted.md',
  'See src/account/sessions.ts, [the guide](guide-gone.md#top), `gone-helper.ts` (sign-in.ts checks it); src/account/session.ts and [tests](tests.md) exist.',
);
if (planted.length !== 4) {
  console.error(`check-words: the planted names were not all found (${planted.length} of 4):\n  ${planted.join('\n  ')}`);
  process.exit(1);
}

const read = files.filter((f) => READ.test(f) && !SELF.has(f));
const problems = read.flatMap((file) => missingIn(file, readFileSync(file, 'utf8')));
if (problems.length > 0) {
  console.error(`check-words: ${problems.length} name(s) of files that do not exist:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`check-words: every file named in ${read.length} files' comments and docs exists (and the 4 planted names that do not were found).`);
