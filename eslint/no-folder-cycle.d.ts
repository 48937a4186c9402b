import type { ESLint } from 'eslint';

/** The local plugin of no-folder-cycle.js: `rules['no-folder-cycle']`. */
declare const plugin: ESLint.Plugin;
export = plugin;
