import { describe, expect, it } from "vitest";
import { ReadProblem, readCapped } from "./bounded-read.js";

/** A response whose body arrives in `chunks` of `size` bytes, with no content-length (chunked framing). */
function chunked(chunks: number, size: number): Response {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ === chunks) controller.close();
      else controller.enqueue(new Uint8Array(size).fill(65));
    },
  });
  return new Response(body);
}

describe("readCapped", () => {
  it("reads a body within the cap whole", async () => {
    expect(new TextDecoder().decode(await readCapped(chunked(3, 4), 12))).toBe("A".repeat(12));
  });

  it("refuses a body of unknown length once it passes the cap", async () => {
    const error = await readCapped(chunked(1_000, 1024), 4096).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReadProblem);
    expect(error).toMatchObject({ kind: "too-large", message: "the answer is larger than 4096 bytes" });
  });

  it("refuses a body whose content-length is over the cap before reading it", async () => {
    const response = new Response("x".repeat(10), { headers: { "content-length": "10" } });
    await expect(readCapped(response, 9)).rejects.toMatchObject({ kind: "too-large" });
  });

  it("reads no body as no bytes", async () => {
    expect(await readCapped(new Response(null, { status: 204 }), 1)).toEqual(new Uint8Array());
  });
});
