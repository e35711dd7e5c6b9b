#!/usr/bin/env node
// Run by `npm test`: HTML is written one way, the `html` template of
// src/lib/markup.ts, which escapes every value for where it lands. This
// finds HTML written any other way in src/ and emails/ (tests aside) and
// fails with one line per place:
// - a template literal holding markup and a value, not tagged `html`;
// - markup joined to a value with `+`;
// - `trusted(...)` given anything but a literal or an UPPER_CASE constant;
// - `escapeHtml` used outside the template's own module (escaping by hand
//   means HTML built by hand);
// - `innerHTML` set to anything but a `Markup`'s `.html` or ''.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from '@babel/parser';

const ROOTS = ['src', 'emails'];
const ESCAPING_MODULES = new Set(['src/lib/escape.ts', 'src/lib/markup.ts']);
/** The elements of HTML and the SVG the pages draw: `<token>` in a description is a placeholder, `<td>` is markup. */
const ELEMENTS =
  'a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label legend li link main map mark menu meta meter nav noscript object ol optgroup option output p param picture pre progress q rp rt ruby s samp script search section select slot small source span strong style sub summary sup table tbody td template textarea tfoot th thead time title tr track u ul var video wbr svg g path line polyline polygon rect circle ellipse text tspan defs use desc symbol clippath lineargradient stop';
/** A start or end tag of one of those, a comment or a doctype: text a browser would read as markup. */
const MARKUP = new RegExp(`<\\/?(?:${ELEMENTS.split(' ').join('|')})(?=[\\s>/])|<!--|<!doctype`, 'i');
const CONSTANT = /^[A-Z][A-Z0-9_]*$/;

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === '_fixtures' ? [] : sourceFiles(path);
    return /\.(ts|tsx|mjs|js)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every node of `ast` with its parent. */
function* walk(node, parent = null) {
  if (!node || typeof node.type !== 'string') return;
  yield [node, parent];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'loc' || key === 'start' || key === 'end' || key === 'extra' || key.endsWith('Comments')) continue;
    if (Array.isArray(value)) for (const child of value) yield* walk(child, node);
    else if (value && typeof value === 'object') yield* walk(value, node);
  }
}

const literalText = (node) => (node.type === 'StringLiteral' ? node.value : node.type === 'TemplateLiteral' ? node.quasis.map((q) => q.value.cooked ?? q.value.raw).join('') : null);
const isHtmlTag = (node) => node?.type === 'TaggedTemplateExpression' && node.tag.type === 'Identifier' && node.tag.name === 'html';

/** The problems of one file's source, each `path:line: what`. */
export function checkSource(path, text) {
  const problems = [];
  let ast;
  try {
    ast = parse(text, { sourceType: 'module', plugins: ['typescript', ...(path.endsWith('x') ? ['jsx'] : [])], errorRecovery: false });
  } catch (error) {
    return [`${path}: cannot be parsed (${error.message})`];
  }
  const at = (node, what) => problems.push(`${path}:${node.loc.start.line}: ${what}`);
  for (const [node, parent] of walk(ast.program)) {
    if (node.type === 'TemplateLiteral' && node.expressions.length > 0 && !isHtmlTag(parent) && MARKUP.test(literalText(node))) {
      at(node, 'markup in a template literal with values: write it with the `html` template (src/lib/markup.ts)');
    }
    if (node.type === 'BinaryExpression' && node.operator === '+') {
      const sides = [node.left, node.right];
      const markupSide = sides.find((side) => MARKUP.test(literalText(side) ?? ''));
      if (markupSide && sides.some((side) => literalText(side) === null)) at(node, 'markup joined to a value with `+`: write it with the `html` template');
    }
    if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && node.callee.name === 'trusted') {
      const [argument] = node.arguments;
      const constant =
        argument &&
        (argument.type === 'StringLiteral' || (argument.type === 'TemplateLiteral' && argument.expressions.length === 0) || (argument.type === 'Identifier' && CONSTANT.test(argument.name)));
      if (!constant) at(node, '`trusted` takes a literal or an UPPER_CASE constant of the code, never a value');
    }
    if (node.type === 'Identifier' && node.name === 'escapeHtml' && !ESCAPING_MODULES.has(path)) {
      at(node, '`escapeHtml` by hand: write the HTML with the `html` template, which escapes for each place');
    }
    if (node.type === 'AssignmentExpression' && node.left.type === 'MemberExpression' && node.left.property.name === 'innerHTML') {
      const right = node.right;
      const fromMarkup = right.type === 'MemberExpression' && right.property.name === 'html';
      if (!fromMarkup && literalText(right) !== '') at(node, '`innerHTML` set to something other than a Markup value (`.html`)');
    }
  }
  return problems;
}

const root = process.cwd();
const files = ROOTS.flatMap((dir) => sourceFiles(join(root, dir))).map((file) => relative(root, file));
const failures = files.flatMap((file) => checkSource(file, readFileSync(file, 'utf8')));

// The check must catch what it guards against: each kind of hand-written HTML, planted.
const planted = {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: source text planted for the check, not a template of ours.
  'a raw template': 'const row = (name: string) => `<tr data-name="${name}"><td>${name}</td></tr>`;',
  'a joined string': "const cell = (name: string) => '<td>' + name + '</td>';",
  'a trusted value': 'const page = (css: string) => trusted(css);',
  'escaping by hand': "const cell = (name: string) => ['<td>', escapeHtml(name), '</td>'].join('');",
  'innerHTML from a string': 'main.innerHTML = name;',
};
for (const [what, source] of Object.entries(planted)) {
  if (checkSource('src/planted.ts', source).length === 0) failures.push(`self-test: ${what} (${source}) was not reported`);
}
// biome-ignore lint/suspicious/noTemplateCurlyInString: source text planted for the check, not a template of ours.
const fine = 'const row = (name: string) => html`<tr data-name="${name}"><td>${name}</td></tr>`; const css = trusted(STYLE); main.innerHTML = row(\'x\').html;';
for (const problem of checkSource('src/planted.ts', fine)) failures.push(`self-test: the html template was reported: ${problem}`);

if (failures.length > 0) {
  console.error(`HTML (scripts/check-html.mjs): ${failures.length} problem(s)\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
console.log(`HTML is written with the html template only: ${files.length} files of src/ and emails/.`);
