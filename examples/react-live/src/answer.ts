/**
 * The recorded model answer the example streams: one JSON document, a title and 200 sensor
 * readings, and its JSON Schema. The answer is generated from a fixed seed, so the server that
 * replays it, the page that types it and the end-to-end test that checks the page against it
 * (test/e2e/react-live.test.ts) all see the same 20 KB of text without a fixture file.
 *
 * Invariants: `recordedAnswer()` returns the same text on every call and on every machine (no
 * Date, no Math.random); `JSON.parse` of the text is `answerDocument()`, which the schema accepts; a unit
 * (µg/m³, m³/h) puts multi-byte UTF-8 characters in every item, so the server's byte chunks
 * split some of them, as a model server's token chunks do. No DOM or Node API: the page, the
 * server and the test import this file.
 */

export const ITEM_COUNT = 200;

/** The answer's schema, `as const` so that the page's values are typed from it. */
export const schema = {
  type: 'object',
  additionalProperties: false,
  required: ['title', 'items'],
  properties: {
    title: { type: 'string' },
    items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'kind', 'reading', 'unit', 'note'],
        properties: {
          id: { type: 'integer', minimum: 1 },
          name: { type: 'string' },
          kind: { type: 'string', enum: ['air', 'noise', 'water', 'traffic'] },
          reading: { type: 'number' },
          unit: { type: 'string' },
          note: { type: 'string' },
        },
      },
    },
  },
} as const;

export interface Reading {
  readonly id: number;
  readonly name: string;
  readonly kind: 'air' | 'noise' | 'water' | 'traffic';
  readonly reading: number;
  readonly unit: string;
  readonly note: string;
}

export interface Answer {
  readonly title: string;
  readonly items: readonly Reading[];
}

const PLACES = [
  'North Gate',
  'Harbour Bridge',
  'Old Market',
  'Riverside',
  'Station Square',
  'Hill Park',
  'Canal Lock',
  'Elm Street',
  'Ring Road',
  'University',
  'Ferry Pier',
  'Tram Depot',
] as const;

const UNITS = { air: 'µg/m³', noise: 'dB(A)', water: 'm³/h', traffic: 'vehicles/h' } as const;

const NOTES = [
  'Steady since the morning.',
  'Rising after the rain stopped.',
  'Peaks at rush hour, then falls back.',
  'Below the weekly average.',
  'Sensor cleaned on Tuesday; readings look normal again.',
  'Higher near the crossing than at the park end.',
  'Two gaps overnight while the mast was serviced.',
  'Matches the neighbouring station within a few percent.',
] as const;

/** mulberry32: a tiny seeded generator, so the answer is the same everywhere. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The document the model answered. */
export function answerDocument(): Answer {
  const random = generator(20261127);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const kinds = ['air', 'noise', 'water', 'traffic'] as const;
  const items: Reading[] = [];
  for (let id = 1; id <= ITEM_COUNT; id++) {
    const kind = pick(kinds);
    const scale = { air: 80, noise: 90, water: 400, traffic: 2400 }[kind];
    items.push({
      id,
      name: `${pick(PLACES)} ${1 + Math.floor(random() * 9)}`,
      kind,
      reading: Math.round(random() * scale * 10) / 10,
      unit: UNITS[kind],
      note: pick(NOTES),
    });
  }
  return { title: `City sensors: ${ITEM_COUNT} readings at noon`, items };
}

/** The model's text: the document as compact JSON, one item per line as models often write arrays. */
export function recordedAnswer(): string {
  const document = answerDocument();
  const items = document.items.map((item) => JSON.stringify(item)).join(',\n');
  return `{"title":${JSON.stringify(document.title)},"items":[\n${items}\n]}\n`;
}

/**
 * Bytes in the model's chunk number `index` (from 0): 4 to 8, in a fixed pattern, so that the
 * test knows which chunks carried which item.
 */
export function chunkSize(index: number): number {
  return 4 + ((index * 3) % 5);
}
