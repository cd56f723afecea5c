import { describe, expect, it } from "vitest";
import { readAtMost } from "./bounded-body.js";

/** A body that yields `chunks`, recording whether it was cancelled and how many chunks were pulled. */
function bodyOf(chunks: Uint8Array[]) {
  const state = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[state.pulled++];
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { body, state };
}

const bytes = (...values: number[]) => new Uint8Array(values);

describe("readAtMost", () => {
  it("joins the chunks of a body within the limit", async () => {
    const { body } = bodyOf([bytes(1, 2), bytes(3), bytes(4, 5)]);
    expect(await readAtMost(body, 5)).toEqual(bytes(1, 2, 3, 4, 5));
  });

  it("reads an empty body as no bytes", async () => {
    expect(await readAtMost(bodyOf([]).body, 0)).toEqual(bytes());
  });

  it("stops at the chunk that passes the limit, cancels the body and reads no further", async () => {
    const { body, state } = bodyOf([bytes(1, 2), bytes(3, 4), bytes(5), bytes(6)]);
    expect(await readAtMost(body, 3)).toBeUndefined();
    expect(state.pulled).toBeLessThanOrEqual(3);
    await Promise.resolve();
    expect(state.cancelled).toBe(true);
  });
});
