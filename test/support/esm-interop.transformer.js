/**
 * ts-jest, preceded by a rewrite of the `import.meta` members that ESM-only packages use, which
 * have no meaning once those packages are transpiled to CommonJS for Jest (see jest.config.js).
 */
const { TsJestTransformer } = require('ts-jest');

const REWRITES = [
  [/import\.meta\.url/g, 'require("node:url").pathToFileURL(__filename).href'],
  [/import\.meta\.dirname/g, '__dirname'],
  [/import\.meta\.resolve\(/g, 'require.resolve('],
  // `const require = createRequire(...)` is legal in ESM but redeclares CommonJS's own `require`.
  [/^const require = /m, 'require = '],
];

class EsmInteropTransformer extends TsJestTransformer {
  rewrite(source, path) {
    if (!path.includes('/node_modules/') || !source.includes('import.meta')) return source;
    return REWRITES.reduce(
      (text, [pattern, replacement]) => text.replace(pattern, replacement),
      source,
    );
  }
  process(source, path, options) {
    return super.process(this.rewrite(source, path), path, options);
  }
  processAsync(source, path, options) {
    return super.processAsync(this.rewrite(source, path), path, options);
  }
  getCacheKey(source, path, options) {
    return super.getCacheKey(this.rewrite(source, path), path, options);
  }
}

module.exports = { createTransformer: (config) => new EsmInteropTransformer(config) };
