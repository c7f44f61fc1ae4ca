// Lint rule: packages use each other through their package.json `exports` (`@mutp/x/sub`), never
// by a relative path out of their folder or into another package's folder. Root folders that are
// not packages (test/, scripts/, fuzz/) may import each other relatively, but not into a package.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PACKAGES = new Set(JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')).workspaces);
const TYPE_IMPORT = /import\(\s*['"](\.{1,2}\/[^'"]*)['"]\s*\)/g; // JSDoc: @type {import('../x.js').T}

/** The repository folder a path lies in ('' for files at the root). @param {string} path */
const folderOf = (path) => {
  const rel = relative(ROOT, path);
  return rel.startsWith('..') ? null : rel.split(sep)[0];
};

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'problem',
    docs: { description: 'no relative import across a package boundary; use the package\'s exports' },
    messages: { cross: "'{{spec}}' crosses from {{from}}/ into {{to}}/: import it as @mutp/… through that package's exports (and declare the dependency)" },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const from = folderOf(file);
    if (from === null) return {};
    /** @param {string} spec @param {import('eslint').Rule.Node | import('estree').Comment} node */
    const check = (spec, node) => {
      if (!spec.startsWith('./') && !spec.startsWith('../')) return;
      const to = folderOf(resolve(dirname(file), spec));
      if (to === from || (to !== null && !PACKAGES.has(to) && !PACKAGES.has(from))) return;
      context.report({ loc: /** @type {any} */ (node).loc, messageId: 'cross', data: { spec, from, to: to ?? '..' } });
    };
    /** @param {any} node */
    const source = (node) => { if (typeof node.source?.value === 'string') check(node.source.value, node); };
    return {
      ImportDeclaration: source,
      ExportNamedDeclaration: source,
      ExportAllDeclaration: source,
      ImportExpression: source,
      Program() {
        for (const c of context.sourceCode.getAllComments()) for (const m of c.value.matchAll(TYPE_IMPORT)) check(m[1], c);
      },
    };
  },
};
