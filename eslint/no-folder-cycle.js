// @ts-check
'use strict';

/**
 * local/no-folder-cycle: no import cycle between the top-level folders of a source root
 * (src/analysis, src/disclosures, src/push, …; the files directly in the root are one more
 * node, "(top level)"). A folder that imports another which imports it back, directly or
 * through others, is a cycle even when no file imports itself back: import-x/no-cycle sees
 * cycles between files only, and skips type-only imports. Here every import counts: values,
 * types (`import type`, `import('…')` types), re-exports, dynamic imports and require().
 *
 * Each import that closes a cycle is reported where it is written, with the way back, so
 * every file of a cycle names it. The rule reads the other files of the root itself (their
 * import specifiers, kept while a file's modification time and size stay the same); the file
 * being linted is taken as the editor has it. Only relative specifiers are followed (the
 * project has no path aliases).
 */

const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const SOURCE_FILE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const TOP_LEVEL = '(top level)';

/** @typedef {{ folder: string, specifier: string }} Edge */
/** @typedef {{ mtimeMs: number, size: number, edges: Edge[] }} CachedFile */

/** @type {Map<string, Map<string, CachedFile>>} root → file → its cross-folder imports */
const caches = new Map();

/** @param {string} dir @param {string[]} out */
function sourceFiles(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') sourceFiles(full, out);
    } else if (SOURCE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      out.push(full);
    }
  }
  return out;
}

/** The folder of `file` under `root`: its first path segment, TOP_LEVEL for a file directly in root, null outside. */
function folderOf(/** @type {string} */ root, /** @type {string} */ file) {
  const relative = path.relative(root, file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return null;
  const [first, ...rest] = relative.split(path.sep);
  if (rest.length > 0) return first;
  // `../push` names the folder itself (its index file).
  return fs.existsSync(file) && fs.statSync(file).isDirectory() ? first : TOP_LEVEL;
}

/** The imports of `file` (its text `text`) that leave its folder. */
function edgesOf(/** @type {string} */ root, /** @type {string} */ file, /** @type {string} */ text) {
  const from = folderOf(root, file);
  /** @type {Edge[]} */
  const edges = [];
  for (const { fileName: specifier } of ts.preProcessFile(text, true, true).importedFiles) {
    if (!specifier.startsWith('.')) continue;
    const to = folderOf(root, path.resolve(path.dirname(file), specifier));
    if (to !== null && to !== from) edges.push({ folder: to, specifier });
  }
  return edges;
}

/** Every file of `root` with its cross-folder imports, re-reading only the files that changed. */
function scan(/** @type {string} */ root) {
  let cache = caches.get(root);
  if (cache === undefined) caches.set(root, (cache = new Map()));
  const seen = new Set();
  for (const file of sourceFiles(root)) {
    seen.add(file);
    const { mtimeMs, size } = fs.statSync(file);
    const cached = cache.get(file);
    if (cached !== undefined && cached.mtimeMs === mtimeMs && cached.size === size) continue;
    cache.set(file, { mtimeMs, size, edges: edgesOf(root, file, fs.readFileSync(file, 'utf8')) });
  }
  for (const file of cache.keys()) if (!seen.has(file)) cache.delete(file);
  return cache;
}

/**
 * The folder graph: folder → folder it imports → one import that does it (file, specifier).
 * @param {string} root @param {string} current @param {Edge[]} currentEdges
 */
function folderGraph(root, current, currentEdges) {
  /** @type {Map<string, Map<string, { file: string, specifier: string }>>} */
  const graph = new Map();
  const add = (/** @type {string} */ file, /** @type {Edge[]} */ edges) => {
    const from = /** @type {string} */ (folderOf(root, file));
    let targets = graph.get(from);
    if (targets === undefined) graph.set(from, (targets = new Map()));
    for (const edge of edges) if (!targets.has(edge.folder)) targets.set(edge.folder, { file, specifier: edge.specifier });
  };
  for (const [file, { edges }] of scan(root)) if (file !== current) add(file, edges);
  add(current, currentEdges);
  return graph;
}

/**
 * The shortest way from `start` to `goal`, as its hops; null when there is none.
 * @param {ReturnType<typeof folderGraph>} graph @param {string} start @param {string} goal
 */
function wayBack(graph, start, goal) {
  /** @type {Map<string, string>} */
  const cameFrom = new Map([[start, start]]);
  const queue = [start];
  while (queue.length > 0) {
    const folder = /** @type {string} */ (queue.shift());
    if (folder === goal) {
      const hops = [];
      for (let at = goal; at !== start; at = /** @type {string} */ (cameFrom.get(at))) hops.unshift(at);
      return [start, ...hops];
    }
    for (const next of graph.get(folder)?.keys() ?? []) {
      if (!cameFrom.has(next)) {
        cameFrom.set(next, folder);
        queue.push(next);
      }
    }
  }
  return null;
}

/** @type {import('eslint').Rule.RuleModule} */
const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles between the top-level folders of a source root (type-only imports included)' },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string', description: 'The source root, relative to the working directory (default src)' } },
        additionalProperties: false,
      },
    ],
    messages: {
      cycle:
        "{{from}} imports {{to}}, which imports {{from}} back: {{cycle}}. Lower folders must not reach up (docs/development.md, 'Code layout').",
    },
  },
  create(context) {
    const options = /** @type {{ root?: string }} */ (context.options[0] ?? {});
    const root = path.resolve(context.cwd, options.root ?? 'src');
    const file = context.filename;
    const from = folderOf(root, file);
    if (from === null) return {};

    const sourceCode = context.sourceCode;
    /** @type {ReturnType<typeof folderGraph> | undefined} */
    let graph;

    /** @param {import('estree').Node} node @param {unknown} source */
    function check(node, source) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = folderOf(root, path.resolve(path.dirname(file), source));
      if (to === null || to === from) return;
      graph ??= folderGraph(root, file, edgesOf(root, file, sourceCode.text));
      const back = wayBack(graph, to, /** @type {string} */ (from));
      if (back === null) return;
      const hops = back.slice(1).map((next, i) => {
        const via = /** @type {{ file: string, specifier: string }} */ (graph?.get(back[i])?.get(next));
        return `${path.relative(root, via.file)} imports '${via.specifier}'`;
      });
      context.report({
        node,
        messageId: 'cycle',
        data: { from: /** @type {string} */ (from), to, cycle: `${[from, ...back].join(' → ')} (${hops.join('; ')})` },
      });
    }

    /** @param {any} node */
    const fromSource = (node) => check(node, node.source?.value);
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: fromSource,
      /** @param {any} node */
      TSImportEqualsDeclaration: (node) => check(node, node.moduleReference?.expression?.value),
      /** @param {any} node `import('…').T` in a type */
      TSImportType: (node) => check(node, node.argument?.literal?.value ?? node.source?.value),
      /** @param {any} node */
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, node.arguments[0]?.value);
      },
    };
  },
};

module.exports = { rules: { 'no-folder-cycle': rule } };
