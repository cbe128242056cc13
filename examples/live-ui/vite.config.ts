/**
 * Dev server for the live-UI example. `/stream/<file>` serves a recorded model answer from
 * `public/answers/` in small delayed chunks, as a model server streams tokens: the page sees
 * the answer arrive over a couple of seconds. The static build has no server: there the page
 * replays the file in the same chunks itself (src/answer-source.ts).
 */
import { createReadStream, existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { CHUNK_BYTES, CHUNK_DELAY_MS } from './src/pace.js';

const answers = fileURLToPath(new URL('./public/answers/', import.meta.url));

/**
 * The page imports the workspace packages from their sources, so `vite` and `vite build` work
 * right after `pnpm install`, with no `pnpm build` first, and always show the current code.
 * (An app outside this repository installs the published packages and needs none of this.)
 */
const source = (path: string) => fileURLToPath(new URL(`../../packages/${path}`, import.meta.url));
const WORKSPACE_SOURCES = [
  { find: /^@llmjson\/core\/ajv$/, replacement: source('core/src/ajv.ts') },
  { find: /^@llmjson\/core\/internal$/, replacement: source('core/src/internal.ts') },
  { find: /^@llmjson\/core$/, replacement: source('core/src/index.ts') },
  { find: /^@llmjson\/web\/ajv$/, replacement: source('web/src/ajv.ts') },
  { find: /^@llmjson\/web$/, replacement: source('web/src/index.ts') },
];

function streamAnswers(): Plugin {
  return {
    name: 'stream-recorded-answers',
    configureServer(server) {
      server.middlewares.use('/stream/', async (request, response) => {
        const name = (request.url ?? '').replace(/^\//, '').split('?')[0] ?? '';
        if (!/^[\w.-]+\.txt$/.test(name) || !existsSync(`${answers}${name}`)) {
          response.statusCode = 404;
          response.end();
          return;
        }
        response.setHeader('content-type', 'text/plain; charset=utf-8');
        response.setHeader('cache-control', 'no-store');
        response.setHeader('x-paced-answer', '1');
        const delay = Number(new URL(request.url ?? '', 'http://x').searchParams.get('delay') ?? CHUNK_DELAY_MS);
        for await (const block of createReadStream(`${answers}${name}`)) {
          const bytes = block as Buffer;
          for (let i = 0; i < bytes.length; i += CHUNK_BYTES) {
            response.write(bytes.subarray(i, i + CHUNK_BYTES));
            await sleep(delay);
          }
        }
        response.end();
      });
    },
  };
}

// Relative asset and answer URLs: the static build works from any sub-path, not only a site root.
export default defineConfig({ base: './', resolve: { alias: WORKSPACE_SOURCES }, plugins: [streamAnswers()] });
