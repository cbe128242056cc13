/**
 * The React live page: one `useJsonStream` call reads the dev server's llmjson wire
 * (`/api/answer`, server/answer-events.ts) and the page renders the 200 readings as they
 * arrive, with a status line, an Abort button and a Restart button.
 *
 * What it shows: each reading is an `ItemCard` under `React.memo`, and the value the hook
 * hands out shares structure — a reading that completed keeps its object for the rest of the
 * stream — so a completed card is never rendered again, however many tokens follow. Every card
 * counts its renders in the DOM:
 * - `data-renders`: how many times it rendered;
 * - `data-extra-renders`: how many of those showed the same content as the render before
 *   (a wasted render: the card's item was a new object with nothing new in it). A completed
 *   reading never changes, so any render after it completed is counted here. With the hook's
 *   structural sharing and `React.memo` it stays 0 for every card; `?memo=0` renders the cards
 *   without `React.memo`, and the counters then show what the memo saves.
 *
 * URL parameters (the end-to-end test uses them): `run` names the request in the server's
 * records, `delay` sets the milliseconds between the model's chunks, `memo=0` as above.
 */
import { useJsonStream } from '@llmjson/react';
import type { DeepPartial } from '@llmjson/web';
import { memo, useRef, useState } from 'react';
import { ITEM_COUNT, type Reading, type schema } from './answer.js';

const params = new URLSearchParams(window.location.search);
const RUN = params.get('run') ?? `page-${Date.now().toString(36)}`;
const DELAY = params.get('delay');
const MEMO = params.get('memo') !== '0';

interface ItemProps {
  readonly item: DeepPartial<Reading>;
  readonly index: number;
}

function ItemCardBody({ item, index }: ItemProps) {
  // Counted during render on purpose: this is what the page exists to show.
  const renders = useRef(0);
  const extra = useRef(0);
  const shown = useRef<string | undefined>(undefined);
  const content = JSON.stringify(item);
  renders.current += 1;
  if (content === shown.current) extra.current += 1;
  shown.current = content;
  return (
    <li
      className={`item ${item.kind ?? ''}`}
      data-index={index}
      data-renders={renders.current}
      data-extra-renders={extra.current}
    >
      <div className="head">
        <span data-field="id">{item.id}</span>
        <span data-field="name">{item.name}</span>
        <span data-field="kind">{item.kind}</span>
      </div>
      <div className="reading">
        <span data-field="reading">{item.reading}</span> <span data-field="unit">{item.unit}</span>
      </div>
      <p data-field="note">{item.note}</p>
      <span className="renders" title="renders of this card (extra: same content as the render before)">
        {renders.current}× · {extra.current} extra
      </span>
    </li>
  );
}

/** Memoised by identity: the props are the item object and its index. */
const MemoItemCard = memo(ItemCardBody);
const ItemCard = MEMO ? MemoItemCard : ItemCardBody;

export function App() {
  // The page's own renders, beside the cards': many publishes, few renders per card.
  const pageRenders = useRef(0);
  pageRenders.current += 1;
  const [attempt, setAttempt] = useState(0);
  const run = attempt === 0 ? RUN : `${RUN}.${attempt}`;
  const url = `/api/answer?run=${encodeURIComponent(run)}${DELAY === null ? '' : `&delay=${encodeURIComponent(DELAY)}`}`;
  // A new function every render is fine: the request restarts only when `key` changes. The
  // schema types the value; it is not passed, as the server already checked the answer with it.
  const { value, status, complete, diagnostics, end, error, abort } = useJsonStream<typeof schema>(
    (signal) => fetch(url, { signal }),
    { key: url },
  );
  const items = value?.items ?? [];
  const verdict =
    status === 'done' ? (end?.valid ? ' · valid' : ' · not valid') : status === 'error' ? ` · ${String(error)}` : '';
  return (
    <>
      <header>
        <h1>llmjson · React live</h1>
        <p>
          A recorded model answer of {ITEM_COUNT} readings, decoded on the server with llmjson and rendered with{' '}
          <code>useJsonStream</code> from <code>@llmjson/react</code>. Each card counts its renders: a completed reading
          is never rendered again{MEMO ? '' : ' (React.memo is off: ?memo=0)'}.
        </p>
        <div className="controls">
          <p id="status" data-status={status} data-complete={complete} className={status}>
            {status} · {items.length} items{verdict}
            {diagnostics.length > 0 ? ` · ${diagnostics.length} diagnostics` : ''}
          </p>
          <button id="abort" type="button" onClick={() => abort()} disabled={status !== 'streaming'}>
            Abort
          </button>
          <button id="restart" type="button" onClick={() => setAttempt((n) => n + 1)}>
            Restart
          </button>
          <span id="page-renders" data-page-renders={pageRenders.current}>
            page rendered {pageRenders.current}×
          </span>
        </div>
      </header>
      <main>
        <h2 id="title">{value?.title}</h2>
        <ol id="items" className={status}>
          {items.map((item, index) => (
            // The index is the item's identity: a streaming array's elements never move.
            <ItemCard key={index} item={item} index={index} />
          ))}
        </ol>
      </main>
    </>
  );
}
