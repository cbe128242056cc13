/**
 * The `live-wire` benchmark counts bytes, which depend on no machine: a quick run (10 KB answer)
 * must play every pace on its virtual clock, deliver the answer through every entrant (the
 * scenario throws otherwise), and give the figures the compact form exists for — gathered
 * events near the answer's own size, and far below the per-chunk forms.
 */
import { describe, expect, test } from 'vitest';
import { liveWire } from '../../benchmarks/src/scenarios/live-wire.js';

describe('live-wire', () => {
  test('a quick run: every pace and entrant, the bytes each sends', async () => {
    const section = await liveWire.run({ quick: true, measure: { rounds: 1, sampleMs: 5 }, log: () => {} });
    const data = section.data as Record<string, Record<string, { bytes: number; writes: number }>>;
    expect(Object.keys(data)).toEqual(['50 tokens/s', '2000 tokens/s', 'all at once']);
    const at = (pace: string, prefix: string) =>
      Object.entries(data[pace] ?? {}).find(([name]) => name.startsWith(prefix))?.[1] as {
        bytes: number;
        writes: number;
      };
    const text = at('all at once', 'raw text stream');
    // All at once: two events (the first chunk's, then the rest within 50 ms), the document written whole.
    expect(at('all at once', 'llmjson toEventStream() (defaults').writes).toBeLessThanOrEqual(5);
    expect(at('all at once', 'llmjson toEventStream() (defaults').bytes).toBeLessThan(text.bytes * 1.1);
    // 2 000 tokens a second: at most one event per 50 ms.
    const paced = at('2000 tokens/s', 'llmjson toEventStream() (defaults');
    expect(paced.writes).toBeLessThanOrEqual(Math.ceil(((text.writes / 2000) * 1000) / 50) + 3);
    // The per-chunk forms: version 1 costs several times the compact form.
    expect(at('50 tokens/s', 'llmjson wire version 1').bytes).toBeGreaterThan(
      3 * at('50 tokens/s', 'llmjson toEventStream({ throttle: 0 })').bytes,
    );
    expect(section.targets?.map((t) => t.basis)).toHaveLength(3);
  }, 60_000);
});
