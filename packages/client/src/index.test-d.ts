import type { ChatCompletion, ModelList, ProjectTree, Recommendations, Trace } from "@finetune-studio/types";
import { assertType, describe, expectTypeOf, it } from "vitest";
import {
  type ChatClientOptions,
  type ChatCompletionStream,
  type ClientOptions,
  type CompletedRecommendations,
  createChatClient,
  createStudioClient,
  type ExperimentNode,
  findNodes,
  flattenTree,
  type NodeOfType,
  type StudioApiError,
  type StudioAuthError,
  type StudioClientOptions,
  type StudioError,
  type StudioRecommendationsFailedError,
  type StudioValidationError,
  type TreeNode,
  walkTree,
} from "./index.js";

const studio = createStudioClient({ baseUrl: "https://studio.example.net", token: "t" });
const chat = createChatClient({ baseUrl: "http://127.0.0.1:8000" });
const id = "6f1c2a8e-4b7d-4e5a-9c3f-2d8b7a1e0f45";

describe("createStudioClient", () => {
  it("returns the contract's types", () => {
    expectTypeOf(studio.getProjectTree(id)).resolves.toEqualTypeOf<ProjectTree>();
    expectTypeOf(studio.getRecommendations(id)).resolves.toEqualTypeOf<Recommendations>();
    expectTypeOf(studio.updateTrace(id, { score: 0.5 })).resolves.toEqualTypeOf<Trace>();
  });

  it("resolves waitForRecommendations with status narrowed to 'completed'", () => {
    expectTypeOf(studio.waitForRecommendations(id)).resolves.toEqualTypeOf<CompletedRecommendations>();
    expectTypeOf<CompletedRecommendations["status"]>().toEqualTypeOf<"completed">();
  });

  it("requires a token and a baseUrl", () => {
    // @ts-expect-error token is required
    createStudioClient({ baseUrl: "https://studio.example.net" });
    // @ts-expect-error baseUrl is required
    createStudioClient({ token: "t" });
  });

  it("types the trace update by the contract", () => {
    assertType(studio.updateTrace(id, { feedback: null, projectId: null }));
    // @ts-expect-error score is not nullable
    void studio.updateTrace(id, { score: null });
    // @ts-expect-error a misspelt field does not compile
    void studio.updateTrace(id, { scroe: 1 });
    // @ts-expect-error feedback is a string
    void studio.updateTrace(id, { feedback: 3 });
  });

  it("takes per-call options", () => {
    assertType(
      studio.getProjectTree(id, { signal: new AbortController().signal, timeoutMs: 5, maxRetries: 0 }),
    );
    // @ts-expect-error unknown option
    void studio.getProjectTree(id, { retries: 1 });
  });

  it("exposes the openapi-fetch client typed by the Studio paths", () => {
    const call = () =>
      studio.raw.GET("/api/v1/public/projects/{projectId}", { params: { path: { projectId: id } } });
    expectTypeOf<Awaited<ReturnType<typeof call>>["data"]>().toEqualTypeOf<ProjectTree | undefined>();
    // @ts-expect-error not a path of the contract
    void studio.raw.GET("/api/v1/projects");
  });
});

describe("project tree", () => {
  it("keeps the discriminated node types, so node.type narrows", () => {
    const narrow = (node: TreeNode) => {
      if (node.type === "experiment") {
        expectTypeOf(node).toEqualTypeOf<ExperimentNode>();
        // @ts-expect-error experiments have no children
        void node.children;
      }
      if (node.type === "project") expectTypeOf(node.name).toEqualTypeOf<string>();
    };
    walkTree({} as ProjectTree, narrow);
  });

  it("types findNodes by the level asked for", () => {
    expectTypeOf(findNodes({} as ProjectTree, "experiment")).toEqualTypeOf<ExperimentNode[]>();
    expectTypeOf<NodeOfType<"finetuning-job">["type"]>().toEqualTypeOf<"finetuning-job">();
    // @ts-expect-error not a node type
    findNodes({} as ProjectTree, "job");
    expectTypeOf(flattenTree({} as ProjectTree)[0]?.path).toEqualTypeOf<readonly TreeNode[] | undefined>();
  });
});

describe("createChatClient", () => {
  it("follows the chat-completions contract", () => {
    expectTypeOf(
      chat.complete({ model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 8 }),
    ).resolves.toEqualTypeOf<ChatCompletion>();
    expectTypeOf(
      chat.text({ model: "m", messages: [], max_tokens: 8, temperature: 0 }),
    ).resolves.toEqualTypeOf<string>();
    expectTypeOf(chat.listModels()).resolves.toEqualTypeOf<ModelList>();
    expectTypeOf(chat.health()).resolves.toEqualTypeOf<boolean>();
    expectTypeOf(chat.waitUntilReady({ model: "m", timeoutMs: 1_000 })).resolves.toEqualTypeOf<ModelList>();
    // max_tokens is optional, as vLLM and OpenAI have it; a stream is typed by the contract's chunk.
    void chat.complete({ model: "m", messages: [] });
    expectTypeOf(chat.stream({ model: "m", messages: [] })).resolves.toEqualTypeOf<ChatCompletionStream>();
    // @ts-expect-error a message's role is one the contract knows
    void chat.complete({ model: "m", messages: [{ role: "robot", content: "hi" }] });
    // @ts-expect-error a message's content is a string
    void chat.complete({ model: "m", messages: [{ role: "user", content: 1 }], max_tokens: 8 });
  });
});

describe("errors", () => {
  it("form one hierarchy a program can branch on", () => {
    expectTypeOf<StudioAuthError>().toExtend<StudioApiError>();
    expectTypeOf<StudioApiError>().toExtend<StudioError>();
    expectTypeOf<StudioValidationError>().toExtend<StudioError>();
    expectTypeOf<StudioApiError["status"]>().toEqualTypeOf<number>();
    expectTypeOf<StudioValidationError["field"]>().toEqualTypeOf<string>();
    expectTypeOf<StudioRecommendationsFailedError["recommendations"]>().toEqualTypeOf<Recommendations>();
  });
});

describe("one set of options for both clients", () => {
  it("StudioClientOptions and ChatClientOptions extend ClientOptions", () => {
    expectTypeOf<StudioClientOptions>().toMatchTypeOf<ClientOptions>();
    expectTypeOf<ChatClientOptions>().toMatchTypeOf<ClientOptions>();
    expectTypeOf<StudioClientOptions["dangerouslyAllowBrowser"]>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<ClientOptions["maxResponseBytes"]>().toEqualTypeOf<number | undefined>();
  });
});
