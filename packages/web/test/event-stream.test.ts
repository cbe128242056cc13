/**
 * `toEventStream` and `fromEventStream` (packages/web/src/to-event-stream.ts,
 * from-event-stream.ts, wire-changes.ts): the wire format as written (start with `v: 2`, change
 * lists in the compact form, at most one event per `throttle` interval, diagnostics, the end
 * with the verdict), and as read back at the trust boundary (versions 1 and 2), where each kind
 * of bad input is a diagnostic, never an exception or a polluted prototype.
 */
import { type Change, ConfigurationError, type Diagnostic, type JsonSchema } from '@llmjson/core';
import {
  createPartialStream,
  fromEventStream,
  toEventStream,
  type WireDiagnostic,
  type WireEnd,
  type WireEvent,
} from '@llmjson/web';
import { compileSchema } from '@llmjson/web/ajv';
import { describe, expect, test } from 'vitest';
import { expectNoPollution, prototypeKeys } from '../../../test/support/partial.js';
import { readAll } from '../../../test/support/web.js';

const text = (chunks: readonly Uint8Array[]) => new TextDecoder().decode(Buffer.concat(chunks));

async function* lists(...items: unknown[]): AsyncGenerator<readonly Change[]> {
  for (const item of items) yield item as readonly Change[];
}

/** The wire bytes of a JSON document streamed through a Web partial stream in `chunks`. */
async function wireOf(
  chunks: readonly string[],
  options: { schema?: JsonSchema; format?: 'sse' | 'ndjson'; throttle?: number } = {},
) {
  let events: ReturnType<typeof toEventStream> | undefined;
  const partial = createPartialStream({
    emit: 'changes',
    ...(options.schema === undefined ? {} : { schema: options.schema, compileJsonSchema: compileSchema }),
    onDiagnostic: (d) => events?.diagnostic(d),
  });
  events = toEventStream(partial, {
    ...(options.format === undefined ? {} : { format: options.format }),
    ...(options.throttle === undefined ? {} : { throttle: options.throttle }),
  });
  void ReadableStream.from(chunks)
    .pipeTo(partial.writable)
    .catch(() => {});
  return { events, body: text(await readAll(events)) };
}

async function collect(input: Response | ReadableStream<Uint8Array>, options = {}): Promise<WireEvent[]> {
  const out: WireEvent[] = [];
  for await (const event of fromEventStream(input, options)) out.push(event);
  return out;
}

const bodyOf = (s: string) => new Response(s).body as ReadableStream<Uint8Array>;
const START = 'data: {"type":"start","v":1}\n\n';
const END = 'event: end\ndata: {"type":"end","complete":true,"valid":true,"stats":{}}\n\n';
/** The diagnostics the reader found, `reason: message`. */
const found = (events: readonly WireEvent[]) =>
  events.filter((e): e is WireDiagnostic => e.type === 'diagnostic' && e.from === 'wire').map((e) => e.diagnostic);
const changesOf = (events: readonly WireEvent[]) => events.flatMap((e) => (e.type === 'changes' ? [e.changes] : []));

describe('toEventStream', () => {
  test('SSE, throttle 0: the start event with v 2, one event per change list in the compact form, the end with complete, valid and the stats', async () => {
    const { events, body } = await wireOf(['{"a":"he', 'llo","b":[1,', '2]}'], { throttle: 0 });
    expect(events.contentType).toBe('text/event-stream; charset=utf-8');
    expect(events.headers['cache-control']).toBe('no-cache');
    const blocks = body.split('\n\n').filter((b) => b !== '');
    expect(blocks.slice(0, -1)).toEqual([
      'event: start\ndata: {"type":"start","v":2}',
      'data: [[0,{}],[0,"a",""],"he"]',
      'data: ["llo",0,[1,"b",[]],[0,0,1],0]',
      'data: [[1,1,2],0,1,1]',
    ]);
    const end = JSON.parse((blocks.at(-1) as string).replace('event: end\ndata: ', ''));
    expect(end).toEqual({
      type: 'end',
      complete: true,
      valid: true,
      stats: { characters: 23, updates: 3, changes: 12, diagnostics: {} },
    });
  });

  test('NDJSON: one payload per line, the same payloads', async () => {
    const sse = await wireOf(['{"a":[true]}']);
    const ndjson = await wireOf(['{"a":[true]}'], { format: 'ndjson' });
    expect(ndjson.events.contentType).toBe('application/x-ndjson; charset=utf-8');
    const payloads = sse.body
      .split('\n\n')
      .filter((b) => b !== '')
      .map((b) => b.replace(/^event: \w+\n/, '').replace(/^data: /, ''));
    expect(ndjson.body).toBe(`${payloads.join('\n')}\n`);
  });

  test("diagnostics go out as their own events, and a schema's verdict reaches the end event", async () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } } };
    const { body } = await wireOf(['{"n":"not a number"}'], { schema });
    const events = await collect(bodyOf(body));
    const relayed = events.filter((e) => e.type === 'diagnostic' && e.from === 'server') as WireDiagnostic[];
    expect(relayed.map((e) => e.diagnostic.reason)).toContain('schema');
    const end = events.at(-1) as WireEnd;
    expect(end).toMatchObject({ type: 'end', complete: true, valid: false });
    expect(end.stats.diagnostics.schema).toBe(relayed.filter((e) => e.diagnostic.reason === 'schema').length);
    expect(found(events)).toEqual([]);
  });

  test('a container is written empty: its members travel as changes of their own', async () => {
    const live = { grown: 'later' }; // the builder's live tree is mutated after the change is made
    const body = text(await readAll(toEventStream(lists([{ op: 'add', path: [], value: live }]))));
    expect(body).toContain('data: [[0,{}]]');
    expect(body).not.toContain('grown');
  });

  test("`{ value, changes }` items (emit: 'both') are read for their changes; the root's complete makes the end complete", async () => {
    const source = lists(
      { value: {}, changes: [{ op: 'add', path: [], value: {} }] },
      { value: {}, changes: [{ op: 'complete', path: [] }] },
    );
    const events = await collect(toEventStream(source));
    expect(changesOf(events)).toEqual([[{ op: 'add', path: [], value: {} }], [{ op: 'complete', path: [] }]]);
    expect(events.at(-1)).toMatchObject({ complete: true, valid: true, stats: { updates: 2, changes: 2 } });
  });

  test('a snapshot (emit: snapshots) errors the output with a message that says which emit to use', async () => {
    await expect(readAll(toEventStream(lists({ a: 1 })))).rejects.toThrow(/emit: 'changes' or 'both'/);
  });

  test('a source that fails ends the body with an end event that carries the error', async () => {
    async function* failing(): AsyncGenerator<readonly Change[]> {
      yield [{ op: 'add', path: [], value: 'x' }];
      throw new Error('model stream reset');
    }
    const events = await collect(toEventStream(failing()));
    expect(events.at(-1)).toMatchObject({ type: 'end', complete: false, valid: false, error: 'model stream reset' });
  });

  test('cancelling the body returns the source (the model request is aborted upstream)', async () => {
    let returned = false;
    async function* endless(): AsyncGenerator<readonly Change[]> {
      try {
        yield [{ op: 'add', path: [], value: [] }];
        for (let i = 0; ; i++) yield [{ op: 'add', path: [i], value: i }];
      } finally {
        returned = true;
      }
    }
    const reader = toEventStream(endless()).getReader();
    await reader.read();
    await reader.read();
    await reader.cancel('client gone');
    expect(returned).toBe(true);
  });

  test('a keep-alive goes out while the source is silent, and the reader skips it', async () => {
    for (const format of ['sse', 'ndjson'] as const) {
      let release: () => void = () => {};
      async function* thinking(): AsyncGenerator<readonly Change[]> {
        yield [{ op: 'add', path: [], value: 1 }];
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        yield [{ op: 'complete', path: [] }];
      }
      const events = toEventStream(thinking(), { format, keepAliveInterval: 1 });
      const [forReader, forTest] = events.tee();
      const reading = collect(forReader);
      const reader = forTest.getReader();
      const keepAlive = format === 'sse' ? ':\n\n' : '\n';
      for (;;) {
        const { value } = await reader.read();
        if (new TextDecoder().decode(value) === keepAlive) break;
      }
      release();
      await reader.cancel();
      const read = await reading;
      expect(read.filter((e) => e.type === 'diagnostic')).toEqual([]);
      expect(changesOf(read)).toEqual([[{ op: 'add', path: [], value: 1 }], [{ op: 'complete', path: [] }]]);
    }
  });

  test('keepAliveInterval 0: no keep-alive', async () => {
    const body = text(
      await readAll(toEventStream(lists([{ op: 'add', path: [], value: 1 }]), { keepAliveInterval: 0 })),
    );
    expect(body).not.toContain(':\n\n');
  });

  test('options are checked: an unknown name, a format it does not write', () => {
    expect(() => toEventStream(lists(), { fromat: 'sse' } as never)).toThrow(/no option "fromat": did you mean format/);
    expect(() => toEventStream(lists(), { format: 'xml' } as never)).toThrow(ConfigurationError);
    expect(() => toEventStream(lists(), { format: 'xml' } as never)).toThrow(/'sse' or 'ndjson', got "xml"/);
    expect(() => toEventStream(lists(), { keepAliveInterval: -1 })).toThrow(/keepAliveInterval must be/);
  });
});

describe('fromEventStream', () => {
  test('reads back what toEventStream wrote, from a Response, its format taken from the Content-Type', async () => {
    const list: Change[] = [
      { op: 'add', path: [], value: {} },
      { op: 'add', path: ['t'], value: '' },
      { op: 'append', path: ['t'], value: 'hi' },
    ];
    for (const format of ['sse', 'ndjson'] as const) {
      const events = toEventStream(lists(list, [{ op: 'complete', path: [] }]), { format, throttle: 0 });
      const read = await collect(new Response(events, { headers: events.headers }));
      expect(changesOf(read)).toEqual([list, [{ op: 'complete', path: [] }]]);
      expect(read.at(-1)).toMatchObject({ type: 'end', complete: true });
    }
  });

  test('SSE as other producers write it: comments, event names, CRLF and multi-line data', async () => {
    const body = `: keep-alive\r\nevent: start\r\ndata: {"type":"start",\r\ndata: "v":1}\r\n\r\nid: 7\r\ndata: [{"op":"add","path":[],"value":1}]\r\n\r\n${END}`;
    const events = await collect(bodyOf(body));
    expect(found(events)).toEqual([]);
    expect(changesOf(events)).toEqual([[{ op: 'add', path: [], value: 1 }]]);
  });

  const hostile: [string, string, string, RegExp][] = [
    ['not JSON', `${START}data: [{"op":"add",\n\n`, 'syntax', /not JSON/],
    [
      'an unknown op',
      `${START}data: [{"op":"remove","path":[]}]\n\n`,
      'unrecognized',
      /op is "add", "append" or "complete"/,
    ],
    [
      'a path that is not an array',
      `${START}data: [{"op":"add","path":"/a","value":1}]\n\n`,
      'unrecognized',
      /path is an array/,
    ],
    [
      'a negative index',
      `${START}data: [{"op":"add","path":[],"value":[]},{"op":"add","path":[-1],"value":1}]\n\n`,
      'unrecognized',
      /integer from 0/,
    ],
    [
      'a fractional index',
      `${START}data: [{"op":"add","path":[],"value":[]},{"op":"add","path":[0.5],"value":1}]\n\n`,
      'unrecognized',
      /integer from 0/,
    ],
    [
      'a path outside the state',
      `${START}data: [{"op":"add","path":["a","b"],"value":1}]\n\n`,
      'unrecognized',
      /not in the state/,
    ],
    [
      'a hole in an array',
      `${START}data: [{"op":"add","path":[],"value":[]},{"op":"add","path":[3],"value":1}]\n\n`,
      'unrecognized',
      /not in the state/,
    ],
    [
      'an append to a number',
      `${START}data: [{"op":"add","path":[],"value":{}},{"op":"add","path":["n"],"value":1},{"op":"append","path":["n"],"value":"x"}]\n\n`,
      'unrecognized',
      /not a string/,
    ],
    [
      'an add of a whole subtree',
      `${START}data: [{"op":"add","path":[],"value":{"__proto__":{"polluted":1}}}]\n\n`,
      'unrecognized',
      /\{\} or \[\]/,
    ],
    [
      'a path through __proto__',
      `${START}data: [{"op":"add","path":[],"value":{}},{"op":"add","path":["__proto__","polluted"],"value":1}]\n\n`,
      'unrecognized',
      /not in the state/,
    ],
    [
      'a path through constructor.prototype',
      `${START}data: [{"op":"add","path":[],"value":{}},{"op":"add","path":["constructor","prototype","polluted"],"value":1}]\n\n`,
      'unrecognized',
      /not in the state/,
    ],
    ['an unknown event type', `${START}event: x\ndata: {"type":"patch"}\n\n`, 'unrecognized', /unknown type/],
    [
      'a diagnostic of an unknown reason',
      `${START}data: {"type":"diagnostic","diagnostic":{"reason":"evil","message":"m"}}\n\n`,
      'unrecognized',
      /unknown diagnostic reason/,
    ],
    [
      'a missing version',
      'data: {"type":"start"}\n\ndata: [{"op":"add","path":[],"value":1}]\n\n',
      'unrecognized',
      /version "missing"|version missing/,
    ],
    ['no start event', 'data: [{"op":"add","path":[],"value":1}]\n\n', 'unrecognized', /does not begin with/],
  ];
  test.each(hostile)('%s: a diagnostic, no exception, no pollution', async (_, body, reason, message) => {
    const before = prototypeKeys();
    const events = await collect(bodyOf(`${body}${END}`));
    const diagnostics = found(events);
    expect(diagnostics.length).toBeGreaterThan(0);
    expect(diagnostics[0]).toMatchObject({ reason, line: expect.any(Number), offset: expect.any(Number) });
    expect(diagnostics.map((d) => d.message).join('\n')).toMatch(message);
    expectNoPollution(before);
  });

  test('a refused change nested too deep to serialise is quoted by its kind (it overflowed the stack)', async () => {
    const deep = `${'{"b":['.repeat(20_000)}1${']}'.repeat(20_000)}`;
    const events = await collect(bodyOf(`${START}data: [${deep}]\n\n${END}`));
    expect(found(events).map((d) => d.reason)).toEqual(['unrecognized']);
  });

  test('a diagnostic says where its event starts (line and offset of the decoded body)', async () => {
    const body = `${START}data: [1]\n\n`;
    const [diagnostic] = found(await collect(bodyOf(`${body}${END}`)));
    expect(diagnostic).toMatchObject({ line: 3, offset: START.length });
  });

  test("__proto__ is a key like any other: added as data, the state's own member", async () => {
    const before = prototypeKeys();
    const body = `${START}data: [{"op":"add","path":[],"value":{}},{"op":"add","path":["__proto__"],"value":{}},{"op":"add","path":["__proto__","polluted"],"value":1}]\n\n${END}`;
    const events = await collect(bodyOf(body));
    expect(found(events)).toEqual([]);
    expect(changesOf(events)[0]).toHaveLength(3);
    expectNoPollution(before);
  });

  test('a refused change is left out, the rest of its list kept', async () => {
    const body = `${START}data: [{"op":"add","path":[],"value":[]},{"op":"add","path":[5],"value":1},{"op":"add","path":[0],"value":2}]\n\n${END}`;
    const events = await collect(bodyOf(body));
    expect(changesOf(events)).toEqual([
      [
        { op: 'add', path: [], value: [] },
        { op: 'add', path: [0], value: 2 },
      ],
    ]);
  });

  test('an unknown version: one diagnostic, the rest of the stream ignored', async () => {
    const body = `data: {"type":"start","v":3}\n\ndata: [{"op":"add","path":[],"value":1}]\n\n${END}`;
    const events = await collect(bodyOf(body));
    expect(events.map((e) => e.type)).toEqual(['diagnostic', 'diagnostic']);
    expect(found(events)[0]?.message).toMatch(/version 3 is not one this reader knows \(1, 2\)/);
    expect(found(events)[1]?.reason).toBe('truncated'); // no end event was read
  });

  test('too long: an event past maxEventLength, a string past maxValueLength (added or grown), a path past maxDepth', async () => {
    const long = 'x'.repeat(300);
    const events = await collect(
      bodyOf(
        `${START}data: ["${long}"]\n\ndata: [{"op":"add","path":[],"value":{}},{"op":"add","path":["s"],"value":"12345"},{"op":"append","path":["s"],"value":"678"},{"op":"add","path":["t"],"value":"123456789"}]\n\ndata: [{"op":"add","path":["a","b","c","d"],"value":1}]\n\n${END}`,
      ),
      { maxEventLength: 250, maxValueLength: 6, maxDepth: 3 },
    );
    const diagnostics = found(events);
    expect(diagnostics.map((d) => d.reason)).toEqual(['too-long', 'too-long', 'too-long', 'too-deep']);
    expect(diagnostics[0]?.message).toMatch(/maxEventLength/);
    expect(diagnostics[1]?.message).toMatch(/a string of 8 characters \(maxValueLength 6\)/);
  });

  test('a body cut inside an event, or before the end event: truncated', async () => {
    const cut = found(await collect(bodyOf(`${START}data: [{"op":"add","path":[],"value":1}]`)));
    expect(cut.map((d) => d.reason)).toEqual(['truncated', 'truncated']);
    expect(cut[0]?.message).toMatch(/inside an event/);
  });

  test('events after the end event are reported once and ignored', async () => {
    const events = await collect(bodyOf(`${START}${END}data: [1]\n\ndata: [2]\n\n`));
    expect(found(events).map((d) => d.message)).toEqual(['events after the end event: ignored']);
  });

  test('a relayed diagnostic is rebuilt from its known fields only', async () => {
    const relayed = {
      reason: 'schema',
      offset: 3,
      excerpt: 'x'.repeat(1000),
      message: 'bad',
      evil: true,
      errors: [
        { path: '/a', keyword: 'type', message: 'm', schemaPath: '#/type', params: { type: 'number', __proto__: 1 } },
      ],
    };
    const events = await collect(
      bodyOf(`${START}data: ${JSON.stringify({ type: 'diagnostic', diagnostic: relayed })}\n\n${END}`),
    );
    const { diagnostic } = events[0] as WireDiagnostic;
    expect(diagnostic).not.toHaveProperty('evil');
    expect(diagnostic.excerpt.length).toBeLessThan(300);
    expect(diagnostic.errors?.[0]?.params).toEqual({ type: 'number' });
  });

  test('abort: the body is cancelled and the iteration throws the reason', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`${START}data: [{"op":"add","path":[],"value":1}]\n\n`));
      },
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const seen: WireEvent[] = [];
    await expect(
      (async () => {
        for await (const event of fromEventStream(body, { signal: controller.signal })) {
          seen.push(event);
          controller.abort(new Error('user left'));
        }
      })(),
    ).rejects.toThrow('user left');
    expect(seen).toHaveLength(1);
    expect(cancelled).toBe(true);
  });

  test('breaking out of the loop cancels the body', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode(`${START}data: [{"op":"add","path":[],"value":1}]\n\n`));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of fromEventStream(body)) if (event.type === 'changes') break;
    expect(cancelled).toBe(true);
  });

  test('transport failures are exceptions: an HTTP error status, a bad option', () => {
    expect(() => fromEventStream(new Response('oops', { status: 502, statusText: 'Bad Gateway' }))).toThrow(/HTTP 502/);
    expect(() => fromEventStream(bodyOf(''), { maxEventLength: 0 })).toThrow(/positive integer/);
    expect(() => fromEventStream(bodyOf(''), { maxValueLenght: 1 } as never)).toThrow(
      /no option "maxValueLenght": did you mean maxValueLength/,
    );
    expect(() => fromEventStream(bodyOf(''), { format: 'json' } as never)).toThrow(ConfigurationError);
  });

  test('the body is read in whatever pieces it arrives (a CRLF split between chunks)', async () => {
    const body = `event: start\r\ndata: {"type":"start","v":1}\r\n\r\ndata: [{"op":"add","path":[],"value":"é"}]\r\n\r\n${END}`;
    const bytes = new TextEncoder().encode(body);
    const pieces = Array.from(bytes, (b) => Uint8Array.of(b));
    const events = await collect(ReadableStream.from(pieces));
    expect(found(events)).toEqual([]);
    expect(changesOf(events)).toEqual([[{ op: 'add', path: [], value: 'é' }]]);
  });

  test('diagnostics are typed: the event says whose it is', () => {
    const event: WireEvent = { type: 'diagnostic', from: 'wire', diagnostic: {} as Diagnostic };
    expect(event.type === 'diagnostic' && event.from).toBe('wire');
  });
});
