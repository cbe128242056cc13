/**
 * docs/guide/options.md against the option lists the factories check their options with
 * (each beside its factory in packages/core/src, gathered in `FACTORY_OPTION_NAMES` of the internal entry; packages/contracts/src/option-names.ts; the live wire's in packages/web/src/wire-format.ts, the live controllers' in packages/web/src/live-source.ts): every factory has
 * one table, every option it takes is a row with a default, and no row names an option it does
 * not take. So the page cannot fall behind the code, nor promise an option that is refused.
 */

import { readFileSync } from 'node:fs';
import { FACTORY_OPTION_NAMES } from '@llmjson/core/internal';
import { describe, expect, test } from 'vitest';
import { AG_UI_OPTION_NAMES } from '../../packages/ag-ui/src/option-names.js';
import { AI_SDK_OPTION_NAMES } from '../../packages/ai-sdk/src/option-names.js';
import { CONTRACTS_OPTION_NAMES } from '../../packages/contracts/src/option-names.js';
import { LANGCHAIN_OPTION_NAMES } from '../../packages/langchain/src/option-names.js';
import { TANSTACK_AI_OPTION_NAMES } from '../../packages/tanstack-ai/src/option-names.js';
import { LIVE_OPTION_NAMES } from '../../packages/web/src/live-source.js';
import { WIRE_OPTION_NAMES } from '../../packages/web/src/wire-format.js';

const page = readFileSync(new URL('../../docs/guide/options.md', import.meta.url), 'utf8');

/** The page's tables, by the first code span of the `###` heading above each: option → default. */
function tables(markdown: string): Map<string, Map<string, string>> {
  const found = new Map<string, Map<string, string>>();
  let current: Map<string, string> | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^#{2,3} /.test(line) ? /`([^`]+)`/.exec(line) : null;
    if (/^#{1,3} /.test(line)) {
      current = undefined;
      if (heading !== null && line.startsWith('### ')) {
        current = new Map();
        found.set(heading[1] as string, current);
      }
      continue;
    }
    const row = /^\| `([A-Za-z]+)` \| ([^|]*) \|/.exec(line);
    if (row !== null && current !== undefined) current.set(row[1] as string, (row[2] as string).trim());
  }
  return found;
}

const documented = tables(page);
/** The heading of the call options names `run` first. */
const headingOf = (factory: string) => (factory === 'call' ? 'run' : factory);
const lists: [string, readonly string[]][] = [
  ...Object.entries(FACTORY_OPTION_NAMES),
  ...Object.entries(CONTRACTS_OPTION_NAMES),
  ...Object.entries(WIRE_OPTION_NAMES),
  ...Object.entries(LANGCHAIN_OPTION_NAMES),
  ...Object.entries(LIVE_OPTION_NAMES),
  ...Object.entries(AG_UI_OPTION_NAMES),
  ...Object.entries(TANSTACK_AI_OPTION_NAMES),
  ...Object.entries(AI_SDK_OPTION_NAMES),
];

describe('docs/guide/options.md', () => {
  test.each(lists)('%s: its table lists exactly the options it takes, each with a default', (factory, names) => {
    const table = documented.get(headingOf(factory));
    expect(table, `no table headed \`${headingOf(factory)}\``).toBeDefined();
    expect([...(table?.keys() ?? [])].sort()).toEqual([...names].sort());
    for (const [name, byDefault] of table ?? []) expect(byDefault, `${factory}.${name}`).not.toBe('');
  });

  test('no table for a factory that has no list', () => {
    const known = new Set(lists.map(([factory]) => headingOf(factory)));
    expect([...documented.keys()].filter((heading) => !known.has(heading))).toEqual([]);
  });
});
