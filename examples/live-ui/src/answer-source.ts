import { CHUNK_BYTES, CHUNK_DELAY_MS } from './pace.js';

/**
 * A recorded model answer as a byte stream arriving in small delayed chunks. From the dev
 * server, `/stream/<name>` does the pacing; a static build replays `answers/<name>` itself.
 */
export async function answerStream(name: string, delayMs = CHUNK_DELAY_MS): Promise<ReadableStream<Uint8Array>> {
  if (import.meta.env.DEV) {
    const response = await fetch(`/stream/${name}?delay=${delayMs}`);
    // Only the dev server's pacing middleware marks its responses (a static server may answer
    // any path with index.html).
    if (response.ok && response.body !== null && response.headers.get('x-paced-answer') === '1') return response.body;
  }
  const response = await fetch(`${import.meta.env.BASE_URL}answers/${name}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return;
      }
      await new Promise((done) => setTimeout(done, delayMs));
      controller.enqueue(bytes.slice(offset, offset + CHUNK_BYTES));
      offset += CHUNK_BYTES;
    },
  });
}
