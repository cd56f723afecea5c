// The core's declarations are held to the contract, as openapi-fetch holds its calls: a path it does not
// have, a method the path does not take, a wrong or missing path parameter, a body where the contract has
// none or of the wrong shape, and an answer read as the wrong type, do not compile.
import type {
  ChatCompletion,
  ChatPaths,
  ModelList,
  ProjectTree,
  paths,
  Recommendations,
  Trace,
} from "@finetune-studio/types";
import { describe, expectTypeOf, it } from "vitest";
import type { Core } from "./core.js";

declare const studio: Core<paths>;
declare const chat: Core<ChatPaths>;
const request = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };

describe("core declarations", () => {
  it("resolves run with the contract's answer, text with a string and stream with the unread Response", () => {
    expectTypeOf(chat.run({ method: "GET", path: "/v1/models" }, undefined)).toEqualTypeOf<
      Promise<ModelList>
    >();
    expectTypeOf(
      chat.run({ method: "POST", path: "/v1/chat/completions", body: request }, undefined),
    ).toEqualTypeOf<Promise<ChatCompletion>>();
    const tree = studio.run(
      { method: "GET", path: "/api/v1/public/projects/{projectId}", params: { path: { projectId: "p" } } },
      undefined,
    );
    expectTypeOf(tree).toEqualTypeOf<Promise<ProjectTree>>();
    expectTypeOf(chat.text({ method: "GET", path: "/health" }, undefined)).toEqualTypeOf<Promise<string>>();
    expectTypeOf(
      chat.stream({ method: "POST", path: "/v1/chat/completions", body: request }, undefined),
    ).toEqualTypeOf<Promise<Response>>();
  });

  it("takes the contract's paths, each with the methods it has", () => {
    const update = {
      method: "PUT",
      path: "/api/v1/traces/{id}",
      params: { path: { id: "t" } },
      body: {},
    } as const;
    void studio.run(update, undefined);
    // @ts-expect-error: no such path in the Studio contract
    void studio.run({ method: "GET", path: "/api/v1/projects" }, undefined);
    const post = { ...update, method: "POST" } as const;
    // @ts-expect-error: the trace route is PUT, not POST
    void studio.run(post, undefined);
    // @ts-expect-error: a Studio path is not a chat path
    void chat.run({ method: "GET", path: "/api/v1/public/projects/{projectId}" }, undefined);
  });

  it("takes the path parameters the contract names, and requires them", () => {
    const path = "/api/v1/public/recommendations/{snapshotId}";
    void studio.run({ method: "GET", path, params: { path: { snapshotId: "s" } } }, undefined);
    // @ts-expect-error: the parameter is snapshotId, not id
    void studio.run({ method: "GET", path, params: { path: { id: "s" } } }, undefined);
    // @ts-expect-error: the parameter is required
    void studio.run({ method: "GET", path }, undefined);
    // @ts-expect-error: a path parameter is a string
    void studio.run({ method: "GET", path, params: { path: { snapshotId: 7 } } }, undefined);
    const query = { method: "GET", path, params: { path: { snapshotId: "s" }, query: { a: 1 } } } as const;
    // @ts-expect-error: the contract has no query here, and the core would not send one
    void studio.run(query, undefined);
  });

  it("takes the body the contract declares, and none where it has none", () => {
    // @ts-expect-error: a GET has no body
    void chat.run({ method: "GET", path: "/v1/models", body: {} }, undefined);
    // @ts-expect-error: a completion request needs messages
    void chat.run({ method: "POST", path: "/v1/chat/completions", body: { model: "m" } }, undefined);
    // @ts-expect-error: the completion route requires a body
    void chat.stream({ method: "POST", path: "/v1/chat/completions" }, undefined);
    const update = { method: "PUT", path: "/api/v1/traces/{id}", params: { path: { id: "t" } } } as const;
    void studio.run({ ...update, body: { score: 1 } }, undefined);
    // @ts-expect-error: score is a number
    void studio.run({ ...update, body: { score: "1" } }, undefined);
  });

  it("answers with the type of the operation's answer, never another", async () => {
    const path = "/api/v1/public/recommendations/{snapshotId}";
    const answer = studio.run({ method: "GET", path, params: { path: { snapshotId: "s" } } }, undefined);
    expectTypeOf(answer).toEqualTypeOf<Promise<Recommendations>>();
    // @ts-expect-error: recommendations are not a trace
    const trace: Trace = await answer;
    void trace;
    // @ts-expect-error: the caller does not choose the answer's type
    void studio.run<Trace>({ method: "GET", path, params: { path: { snapshotId: "s" } } }, undefined);
  });
});
