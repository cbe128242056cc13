/**
 * Dev server for the React live example. `GET /api/answer?run=NAME&delay=MS` replays the
 * recorded model answer (src/answer.ts) in small paced chunks, decodes it with llmjson and
 * answers with the llmjson wire (server/answer-events.ts); `GET /api/replays?run=NAME` says
 * how far each replay got and how it ended, so that a test can see that a page's Abort closed
 * the request and stopped the model.
 *
 * The route module is loaded through Vite (`ssrLoadModule`), like the page, so that it reads
 * the workspace packages' sources: `pnpm dev` works right after `pnpm install`, with no build.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import type { Replay } from './server/answer-events.js';

/**
 * The page and the route import the workspace packages from their sources, always the current
 * code. (An app outside this repository installs the published packages and needs none of this.)
 */
const source = (path: string) => fileURLToPath(new URL(`../../packages/${path}`, import.meta.url));
const WORKSPACE_SOURCES = [
  { find: /^@llmjson\/core\/ajv$/, replacement: source('core/src/ajv.ts') },
  { find: /^@llmjson\/core\/internal$/, replacement: source('core/src/internal.ts') },
  { find: /^@llmjson\/core$/, replacement: source('core/src/index.ts') },
  { find: /^@llmjson\/web\/ajv$/, replacement: source('web/src/ajv.ts') },
  { find: /^@llmjson\/web$/, replacement: source('web/src/index.ts') },
  { find: /^@llmjson\/react$/, replacement: source('react/src/index.ts') },
];

function liveAnswer(): Plugin {
  return {
    name: 'live-answer',
    configureServer(server) {
      // The records of this server's replays, oldest first (a dev server serves few).
      const replays = new Map<string, Replay>();

      server.middlewares.use('/api/replays', (request, response) => {
        const run = new URL(request.url ?? '', 'http://x').searchParams.get('run');
        const list = [...replays.values()].filter((replay) => run === null || replay.run === run);
        response.setHeader('content-type', 'application/json');
        response.setHeader('cache-control', 'no-store');
        response.end(JSON.stringify(list));
      });

      server.middlewares.use('/api/answer', async (request, response) => {
        const params = new URL(request.url ?? '', 'http://x').searchParams;
        const run = params.get('run') ?? `run-${replays.size + 1}`;
        const delay = params.has('delay') ? Number(params.get('delay')) : undefined;
        if (delay !== undefined && !(Number.isFinite(delay) && delay >= 0)) {
          response.statusCode = 400;
          response.end(`delay must be a number of milliseconds from 0, got ${params.get('delay')}`);
          return;
        }
        let answer: ReturnType<typeof import('./server/answer-events.js').answerEvents>;
        try {
          const route = (await server.ssrLoadModule(
            '/server/answer-events.ts',
          )) as typeof import('./server/answer-events.js');
          answer = route.answerEvents(run, delay);
        } catch (error) {
          // A broken route answers 500 with what went wrong, and the dev server stays up.
          response.statusCode = 500;
          response.end(String(error));
          return;
        }
        const { events, replay } = answer;
        replays.set(run, replay);
        response.writeHead(200, { ...events.headers, 'x-replay': run });
        const reader = events.getReader();
        // The browser's fetch was aborted (or the tab closed): cancel the events, which stops the replay.
        response.on('close', () => {
          if (response.writableFinished) return;
          replay.clientClosed = true;
          reader.cancel(new Error('the client closed the request')).catch(() => {});
        });
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            response.write(value);
          }
          response.end();
        } catch {
          response.destroy();
        }
      });
    },
  };
}

export default defineConfig({
  resolve: { alias: WORKSPACE_SOURCES },
  // React 19's automatic JSX runtime (`react/jsx-runtime`), compiled by Vite itself: no plugin needed.
  oxc: { jsx: { runtime: 'automatic' } },
  // Pre-bundled at start, so that a first visit never reloads the page mid-answer to add them.
  optimizeDeps: { include: ['react', 'react/jsx-runtime', 'react/jsx-dev-runtime', 'react-dom/client'] },
  plugins: [liveAnswer()],
});
