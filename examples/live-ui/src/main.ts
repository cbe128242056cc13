/**
 * Renders two streaming model answers as they arrive:
 * - a JSONL extraction answer through `createJsonlStream`: each valid object is appended to a
 *   list the moment its line ends; dropped lines appear beside it with their reason;
 * - a JSON-document answer through `createPartialStream({ emit: 'changes' })`: the title and
 *   summary grow as text is appended, items appear one by one, and each item is marked
 *   complete when its subtree closes. Only the node a change touches is updated.
 * `document.body.dataset.state` is `streaming` until both answers have ended, then `done`.
 */
import { applyChanges, type Change, type Diagnostic } from '@llmjson/core';
import { createJsonlStream, createPartialStream } from '@llmjson/web';
import { compileSchema } from '@llmjson/web/ajv';
import schema from '../../../packages/contracts/schemas/prompt-contracts/llmjson/kg/definition_relationship/v1.schema.json';
import { answerStream } from './answer-source.js';

const $ = (id: string) => document.getElementById(id) as HTMLElement;

/** Calls `each` with every chunk of a stream (a reader loop: Safari cannot `for await` a ReadableStream). */
async function forEach<T>(stream: ReadableStream<T>, each: (chunk: T) => void): Promise<void> {
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    each(value);
  }
}

type Extracted =
  | { type: 'definition'; entity: string; definition: string }
  | { type: 'relationship'; subject: string; predicate: string; object: string };

function renderObject(value: Extracted): HTMLLIElement {
  const li = document.createElement('li');
  li.className = value.type;
  if (value.type === 'definition') {
    const b = document.createElement('b');
    b.textContent = value.entity;
    li.append(b, `: ${value.definition}`);
  } else {
    li.textContent = `${value.subject} — ${value.predicate} → ${value.object}`;
  }
  return li;
}

function renderDiagnostic(d: Diagnostic): HTMLLIElement {
  const li = document.createElement('li');
  li.className = d.reason;
  li.textContent = `line ${d.line ?? '?'}: ${d.reason}: ${d.message}`;
  return li;
}

async function streamExtraction(): Promise<void> {
  const objects = $('objects');
  const diagnostics = $('diagnostics');
  $('jsonl-status').textContent = 'streaming…';
  const values = (await answerStream('extraction.txt')).pipeThrough(
    createJsonlStream({
      schema,
      compileJsonSchema: compileSchema,
      onDiagnostic: (d) => diagnostics.append(renderDiagnostic(d)),
    }),
  );
  await forEach(values as ReadableStream<unknown> as ReadableStream<Extracted>, (value) =>
    objects.append(renderObject(value)),
  );
  $('jsonl-status').textContent = `${objects.children.length} objects`;
}

interface Item {
  stage?: string;
  where?: string;
  atp?: number;
  note?: string;
}

/** The document's state, kept in sync by applying the changes (the UI's own store). */
let state: { title?: string; summary?: string; items?: Item[] } | undefined;

function renderItem(li: HTMLElement, item: Item): void {
  li.replaceChildren();
  const head = document.createElement('b');
  head.textContent = item.stage ?? '';
  const where = item.where === undefined ? '' : ` — ${item.where}`;
  const atp = item.atp === undefined ? '' : ` (${item.atp} ATP)`;
  const note = document.createElement('span');
  note.className = 'note';
  note.textContent = item.note ?? '';
  li.append(head, `${where}${atp}`, note);
}

function applyToPage(changes: readonly Change[]): void {
  state = applyChanges(state, changes) as typeof state;
  const items = $('items');
  for (const change of changes) {
    const [top, index] = change.path;
    if (top === 'title') $('doc-title').textContent = state?.title ?? '';
    else if (top === 'summary') $('summary').textContent = state?.summary ?? '';
    else if (top === 'items' && typeof index === 'number') {
      let li = items.children[index] as HTMLElement | undefined;
      if (li === undefined) {
        li = document.createElement('li');
        items.append(li);
      }
      if (change.op === 'complete' && change.path.length === 2) li.classList.add('complete');
      else renderItem(li, state?.items?.[index] ?? {});
    }
  }
}

async function streamDocument(): Promise<void> {
  $('doc-status').textContent = 'streaming…';
  const changes = (await answerStream('document.txt')).pipeThrough(createPartialStream({ emit: 'changes' }));
  await forEach(changes as ReadableStream<unknown> as ReadableStream<Change[]>, applyToPage);
  $('doc-status').textContent = `${$('items').querySelectorAll('li.complete').length} items complete`;
}

async function run(): Promise<void> {
  for (const id of ['objects', 'diagnostics', 'items', 'summary', 'doc-title']) $(id).replaceChildren();
  state = undefined;
  document.body.dataset.state = 'streaming';
  await Promise.all([streamExtraction(), streamDocument()]);
  document.body.dataset.state = 'done';
}

$('replay').addEventListener('click', () => {
  if (document.body.dataset.state !== 'streaming') void run();
});
void run();
