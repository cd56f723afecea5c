import { describe, expect, it } from "vitest";
import { studioOperations } from "../scenarios/studio.js";
import { answers, ids } from "./answers.js";
import { IN_PROCESS_URL, withAnswersInProcess } from "./in-process-fetch.js";

describe("withAnswersInProcess", () => {
  it("answers each route with the answering server's body, and 404 for any other", async () => {
    await withAnswersInProcess(async () => {
      const tree = await fetch(`${IN_PROCESS_URL}/api/v1/public/projects/${ids.projectId}`);
      expect([tree.status, await tree.text()]).toEqual([200, answers.projectTree]);
      const put = await fetch(`${IN_PROCESS_URL}/api/v1/traces/${ids.traceId}`, {
        method: "PUT",
        body: "{}",
      });
      expect([put.status, await put.text()]).toEqual([200, answers.trace]);
      const other = await fetch(`${IN_PROCESS_URL}/api/v1/traces/${ids.traceId}`);
      expect(other.status).toBe(404);
    });
  });

  it("reads a Request's body, as a server would", async () => {
    const request = new Request(`${IN_PROCESS_URL}/v1/chat/completions`, { method: "POST", body: "{}" });
    const answer = await withAnswersInProcess(() => fetch(request));
    expect([answer.status, request.bodyUsed]).toEqual([200, true]);
  });

  it("puts the real fetch back, also when the work throws", async () => {
    const network = globalThis.fetch;
    await expect(
      withAnswersInProcess(async () => {
        expect(globalThis.fetch).not.toBe(network);
        throw new Error("stop");
      }),
    ).rejects.toThrow("stop");
    expect(globalThis.fetch).toBe(network);
  });

  it("serves every Studio scenario without the network (nothing listens on its URL)", async () => {
    // Made inside, as the bench makes them: openapi-fetch takes the fetch it is created with.
    let operations: ReturnType<typeof studioOperations> = [];
    const results = await withAnswersInProcess(() => {
      operations = studioOperations(IN_PROCESS_URL);
      return Promise.all(operations.flatMap((operation) => operation.scenarios.map((s) => s.call())));
    });
    // Every library's call of an operation gets that operation's answer.
    const bodies = [answers.projectTree, answers.recommendations, answers.trace];
    expect(operations.map((operation) => operation.name)).toEqual([
      "getProjectTree",
      "getRecommendations",
      "updateTrace",
    ]);
    expect(results).toEqual(
      operations.flatMap((operation, i) => operation.scenarios.map(() => JSON.parse(bodies[i] ?? ""))),
    );
  });

  it("leaves a scenario made outside it on the network, where it fails", async () => {
    const [operation] = studioOperations(IN_PROCESS_URL);
    await expect(operation?.scenarios[1]?.call()).rejects.toThrow();
  });
});
