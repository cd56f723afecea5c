// Reads a server-sent-event answer as it arrives, for tests of the mock's framing: each read() of the body
// is kept, so a test can tell one-piece answers from streamed ones.
export interface ReadStream {
  /** The `data:` payloads in order (the last one is `[DONE]` on a complete stream). */
  readonly events: string[];
  /** How many separate reads the body took. */
  readonly reads: number;
  readonly raw: string;
}

export async function readEventStream(response: Response): Promise<ReadStream> {
  if (!response.body) throw new Error("the answer has no body");
  const decoder = new TextDecoder();
  let raw = "";
  let reads = 0;
  const reader = response.body.getReader();
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    reads += 1;
    raw += decoder.decode(part.value, { stream: true });
  }
  raw += decoder.decode();
  if (!raw.endsWith("\n\n"))
    throw new Error(`the stream does not end with a blank line: ${JSON.stringify(raw.slice(-40))}`);
  const events = raw
    .slice(0, -2)
    .split("\n\n")
    .map((frame) => {
      if (!frame.startsWith("data: ") || frame.includes("\n"))
        throw new Error(`not one data line: ${JSON.stringify(frame)}`);
      return frame.slice("data: ".length);
    });
  return { events, reads, raw };
}
