// The client's checks read the contract's limits: change a limit in a copy of the contract, regenerate the
// limits module with the types package's own generator, load the client against it, and the checks follow.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import chatDocument from "@finetune-studio/types/chat-completions.openapi.json" with { type: "json" };
import studioDocument from "@finetune-studio/types/studio.openapi.json" with { type: "json" };
import { afterAll, describe, expect, it, vi } from "vitest";
import { limitsFromDocument, renderLimitsModule } from "../../types/scripts/limits.mjs";
import type { StudioValidationError } from "./errors.js";
import { fakeFetch, json } from "./test/fake-fetch.js";
import { chatRequest, completion, ids, scoredTrace } from "./test/fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "client-limits-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  // The worker's next file must import the client against the real limits, not the last ones loaded here.
  vi.resetModules();
});

/** The client modules, loaded against a limits module generated from edited copies of both contracts. */
async function clientWithContract(edit: (studio: any, chat: any) => void) {
  const studio = structuredClone(studioDocument);
  const chat = structuredClone(chatDocument);
  edit(studio, chat);
  const file = join(dir, `limits-${Date.now()}-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(
    file,
    renderLimitsModule("// generated for a test\n", {
      studioLimits: { source: "a copy of openapi/studio.yaml", limits: limitsFromDocument(studio) },
      chatLimits: { source: "a copy of openapi/chat-completions.yaml", limits: limitsFromDocument(chat) },
    }),
  );
  vi.resetModules();
  vi.doMock("@finetune-studio/types", async (original) => {
    const real = await original<object>();
    // Every limits export comes from the regenerated module: one it no longer has is gone, not the real one.
    const dropped = Object.keys(real).filter((name) => name.endsWith("Limits"));
    return {
      ...real,
      ...Object.fromEntries(dropped.map((name) => [name, undefined])),
      ...(await import(file)),
    };
  });
  try {
    return { ...(await import("./studio.js")), ...(await import("./chat.js")) };
  } finally {
    vi.doUnmock("@finetune-studio/types");
  }
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: StudioValidationError) => e,
  );

describe("limits come from the contract", () => {
  it("follows a feedback length, a score range and a max_tokens minimum changed in the contract", async () => {
    const { createStudioClient, createChatClient } = await clientWithContract((studio, chat) => {
      const update = studio.components.schemas.TraceUpdate.properties;
      update.feedback.maxLength = 100;
      update.score.maximum = 10;
      chat.components.schemas.ChatCompletionRequest.properties.max_tokens.minimum = 5;
    });
    const fetch = fakeFetch(json(scoredTrace));
    const studio = createStudioClient({ baseUrl: "https://studio.example.net", token: "t", fetch });

    const tooLong = await failure(studio.updateTrace(ids.trace, { feedback: "a".repeat(101) }));
    expect(tooLong).toMatchObject({
      field: "feedback",
      rule: expect.stringContaining("at most 100 Unicode code points"),
    });
    await studio.updateTrace(ids.trace, { feedback: "a".repeat(100), score: 7 });
    expect(JSON.parse(fetch.bodies[0] ?? "")).toMatchObject({ score: 7 });
    const tooHigh = await failure(studio.updateTrace(ids.trace, { score: 10.5 }));
    expect(tooHigh).toMatchObject({
      field: "score",
      rule: expect.stringContaining("at least 0 and at most 10"),
    });

    const chatFetch = fakeFetch(json(completion));
    const chat = createChatClient({ baseUrl: "http://127.0.0.1:8000", fetch: chatFetch });
    const tooFew = await failure(chat.complete({ ...chatRequest, max_tokens: 4 }));
    expect(tooFew).toMatchObject({
      field: "max_tokens",
      rule: expect.stringContaining("an integer at least 5"),
    });
    await chat.complete({ ...chatRequest, max_tokens: 5 });
    expect(chatFetch.requests).toHaveLength(1);
  });

  it("follows an id format the contract drops", async () => {
    const { createStudioClient } = await clientWithContract((studio) => {
      const parameter =
        studio.paths["/api/v1/public/projects/{projectId}"].get.parameters.find(
          (p: { name?: string }) => p.name === "projectId",
        ) ?? studio.components.parameters.ProjectId;
      delete parameter.schema.format;
    });
    const fetch = fakeFetch(json({ project: { type: "project", id: "p-1", name: "p", children: [] } }));
    const studio = createStudioClient({ baseUrl: "https://studio.example.net", token: "t", fetch });
    await expect(studio.getProjectTree("p-1")).resolves.toHaveProperty("project");
  });

  it("the real contract's limits still hold for the client loaded normally", async () => {
    const { createStudioClient } = await import("./studio.js");
    const studio = createStudioClient({
      baseUrl: "https://studio.example.net",
      token: "t",
      fetch: fakeFetch(json(scoredTrace)),
    });
    await expect(
      failure(studio.updateTrace(ids.trace, { feedback: "a".repeat(101) })),
    ).resolves.toBeUndefined();
  });
});
