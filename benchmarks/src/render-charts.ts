/**
 * `pnpm --filter @llmjson/benchmarks charts results/<run>.json`: draws the charts of a saved
 * run again (into benchmarks/charts/), e.g. after the chart code changed, without re-running.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { type Environment, writeCharts } from './report.js';
import type { Section } from './types.js';

const file = process.argv[2];
if (file === undefined) {
  console.error('usage: node dist/render-charts.js results/<run>.json');
  process.exit(2);
}
const run = JSON.parse(readFileSync(file, 'utf8')) as { env: Environment; sections: Section[] };
const written = writeCharts(new URL('../charts/', import.meta.url), run.env, run.sections);
console.error(`${written.length} charts from ${pathToFileURL(file).pathname}: ${written.join(', ')}`);
