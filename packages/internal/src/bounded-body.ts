// Reading a body from a server we do not trust: at most `limit` bytes (after decompression), so a gzip
// bomb or an endless answer costs that much memory and no more.

/** The whole body, or undefined once it passes `limit` bytes: the stream is then cancelled, the rest unread. */
export async function readAtMost(
  body: ReadableStream<Uint8Array>,
  limit: number,
): Promise<Uint8Array | undefined> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    total += chunk.value.byteLength;
    if (total > limit) {
      // Not awaited: a server that stalls must not hold the caller, who has its answer.
      reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(chunk.value);
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
