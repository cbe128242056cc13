/**
 * The compact form of change lists (packages/web/src/wire-changes.ts), through the public
 * `toEventStream` / `fromEventStream`: the forms a reader must know, what it refuses and why,
 * and the guard against amplification — an event may make the reader allocate at most
 * 256 + 4 path segments per character, however deep its paths, and the writer falls back to
 * whole paths for a legitimately deep document instead of crossing that line.
 */
import { applyChanges, type Change } from '@llmjson/core';
import { fromEventStream, toEventStream, type WireDiagnostic, type WireEvent } from '@llmjson/web';
import { describe, expect, test } from 'vitest';
import { readAll } from '../../../test/support/web.js';

const START = 'data: {"type":"start","v":2}\n\n';
const END = 'event: end\ndata: {"type":"end","complete":true,"valid":true,"stats":{}}\n\n';

async function collect(body: string | ReadableStream<Uint8Array>): Promise<WireEvent[]> {
  const out: WireEvent[] = [];
  const input = typeof body === 'string' ? (new Response(body).body as ReadableStream<Uint8Array>) : body;
  for await (const event of fromEventStream(input)) out.push(event);
  return out;
}
const changesOf = (events: readonly WireEvent[]) => events.flatMap((e) => (e.type === 'changes' ? e.changes : []));
const found = (events: readonly WireEvent[]) =>
  events.filter((e): e is WireDiagnostic => e.type === 'diagnostic' && e.from === 'wire').map((e) => e.diagnostic);

async function* lists(...items: (readonly Change[])[]): AsyncGenerator<readonly Change[]> {
  yield* items;
}

describe('the compact form, read', () => {
  test('each form: a string appends at the cursor, an integer completes above it, [k, segment, value] and [k, value] add', async () => {
    const body = `${START}data: [[0,{}],[0,"a","he"],"llo",0,[1,"b",[]],[0,0,1],0,[1,1,2],0,1,[1,"c",null],0]\n\n${END}`;
    const events = await collect(body);
    expect(found(events)).toEqual([]);
    expect(changesOf(events)).toEqual([
      { op: 'add', path: [], value: {} },
      { op: 'add', path: ['a'], value: 'he' },
      { op: 'append', path: ['a'], value: 'llo' },
      { op: 'complete', path: ['a'] },
      { op: 'add', path: ['b'], value: [] },
      { op: 'add', path: ['b', 0], value: 1 },
      { op: 'complete', path: ['b', 0] },
      { op: 'add', path: ['b', 1], value: 2 },
      { op: 'complete', path: ['b', 1] },
      { op: 'complete', path: ['b'] },
      { op: 'add', path: ['c'], value: null },
      { op: 'complete', path: ['c'] },
    ]);
  });

  test('a container written whole ([k, segment, V] with V not empty) is its add, its members in order, its complete', async () => {
    const body = `${START}data: [[0,{"a":[1,"x"],"b":{}}],[0,"c",{"d":null}]]\n\n${END}`;
    const events = await collect(body);
    expect(found(events)).toEqual([]);
    expect(changesOf(events)).toEqual([
      { op: 'add', path: [], value: {} },
      { op: 'add', path: ['a'], value: [] },
      { op: 'add', path: ['a', 0], value: 1 },
      { op: 'complete', path: ['a', 0] },
      { op: 'add', path: ['a', 1], value: 'x' },
      { op: 'complete', path: ['a', 1] },
      { op: 'complete', path: ['a'] },
      { op: 'add', path: ['b'], value: {} },
      { op: 'complete', path: ['b'] },
      { op: 'complete', path: [] },
      // The cursor is the root again, completed: `c` is added under it.
      { op: 'add', path: ['c'], value: {} },
      { op: 'add', path: ['c', 'd'], value: null },
      { op: 'complete', path: ['c', 'd'] },
      { op: 'complete', path: ['c'] },
    ]);
  });

  test('a value written whole deeper than maxDepth is refused whole, with the reason', async () => {
    const body = `${START}data: [[0,{"a":{"b":{"c":1}}}]]\n\n${END}`;
    const events: WireEvent[] = [];
    for await (const event of fromEventStream(new Response(body).body as ReadableStream<Uint8Array>, { maxDepth: 2 }))
      events.push(event);
    expect(changesOf(events)).toEqual([]);
    expect(found(events).map((d) => d.message)).toEqual([expect.stringMatching(/nested deeper than maxDepth \(2\)/)]);
  });

  test('the cursor lives across events, and a whole-path change moves it', async () => {
    const body = `${START}data: [[0,{}],[0,"a",{}]]\n\ndata: [[0,"b","x"]]\n\ndata: [{"op":"add","path":["c"],"value":[]},[0,0,"y"],"z"]\n\n${END}`;
    const state = applyChanges(undefined, changesOf(await collect(body)));
    expect(state).toEqual({ a: { b: 'x' }, c: ['yz'] });
  });

  test.each([
    ['levels above the root', '[7]', /a complete goes 7 levels above a path of 0 segments/],
    ['a fractional level', '[[0,{}],[0.5,"a",1]]', /an add goes 0.5 levels above/],
    ['a negative index segment', '[[0,[]],[0,-1,1]]', /segment is a key \(a string\) or an index/],
    [
      'an add of four members',
      '[[0,{}],[0,"a",1,2]]',
      /an add is \[levels, value\] or \[levels, segment, value\], got an array of 4/,
    ],
    ['a boolean member', '[true]', /a change is a string, an integer, an array or an object, got true/],
    ['an append to what is not a string', '[[0,{}],"x"]', /an append to the root, which is not a string/],
  ])('%s: a diagnostic that says why, and nothing applied of it', async (_, payload, message) => {
    const events = await collect(`${START}data: ${payload}\n\n${END}`);
    expect(found(events).map((d) => d.message)).toEqual([expect.stringMatching(message)]);
    expect(() => applyChanges(undefined, changesOf(events))).not.toThrow();
  });
});

describe('no amplification', () => {
  test('a hostile event of deep relative adds allocates at most 256 + 4 path segments per character, and says so', async () => {
    const members = [
      '[0,[]]',
      ...Array.from({ length: 400 }, () => '[0,0,[]]'),
      ...Array.from({ length: 2000 }, () => '[1,0,[]]'),
    ];
    const payload = `[${members.join(',')}]`;
    const events = await collect(`${START}data: ${payload}\n\n${END}`);
    const segments = changesOf(events).reduce((n, c) => n + c.path.length, 0);
    expect(segments).toBeLessThanOrEqual(256 + 4 * payload.length);
    expect(
      found(events).some((d) => /more than 4 path segments per character: send it with its whole path/.test(d.message)),
    ).toBe(true);
  });

  test('a hostile value written whole, deep and wide, is refused whole before it is spread', async () => {
    let nested = '[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]';
    for (let i = 0; i < 200; i++) nested = `[${nested},${nested.length < 4000 ? nested : 0}]`;
    const payload = `[[0,${nested}]]`;
    const events = await collect(`${START}data: ${payload}\n\n${END}`);
    expect(changesOf(events)).toEqual([]);
    expect(found(events).map((d) => d.message)).toEqual([
      expect.stringMatching(/more than 4 path segments per character: send it as its changes/),
    ]);
  });

  test('a legitimately deep document round-trips: the writer sends whole paths before the reader would refuse', async () => {
    const depth = 300;
    const changes: Change[] = [{ op: 'add', path: [], value: {} }];
    const path: string[] = [];
    for (let i = 0; i < depth; i++) {
      path.push('k');
      changes.push({ op: 'add', path: [...path], value: i === depth - 1 ? 'leaf' : {} });
    }
    for (let i = depth; i >= 0; i--) changes.push({ op: 'complete', path: path.slice(0, i) });
    for (const throttle of [0, 50]) {
      const bytes = await readAll(toEventStream(lists(changes), { throttle }));
      const body = new TextDecoder().decode(Buffer.concat(bytes));
      expect(body).toContain('"op":"add"'); // the whole-path form was needed
      const events = await collect(body);
      expect(found(events)).toEqual([]);
      expect(changesOf(events)).toEqual(changes);
    }
  });
});
