// require() of the ESM-only packages from CommonJS: works unflagged from Node 20.19 and 22.12
// (docs/decisions/019-packaging.md), which is what `engines` declares.
const entries = [
  '@llmjson/core',
  '@llmjson/core/ajv',
  '@llmjson/core/internal',
  '@llmjson/node',
  '@llmjson/web',
  '@llmjson/web/ajv',
  '@llmjson/contracts',
  '@llmjson/cli',
];
const loaded = {};
for (const entry of entries) loaded[entry] = Object.keys(require(entry)).length;
const { values } = require('@llmjson/core').parseJsonl('{"a":1}\n{"a":2}\n');
console.log(JSON.stringify({ loaded, values }));
