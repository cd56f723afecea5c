// The core's declarations are held to the contract: a path it does not have, or a method the path does not
// take, does not compile; run<T> resolves with the T the operation names.
import type { ChatPaths, ModelList, paths } from "@finetune-studio/types";
import { describe, expectTypeOf, it } from "vitest";
import type { Core } from "./core.js";

declare const studio: Core<paths>;
declare const chat: Core<ChatPaths>;

describe("core declarations", () => {
  it("resolves run<T> with T, text with a string and stream with the unread Response", () => {
    expectTypeOf(chat.run<ModelList>({ method: "GET", path: "/v1/models" }, undefined)).toEqualTypeOf<
      Promise<ModelList>
    >();
    expectTypeOf(chat.text({ method: "GET", path: "/health" }, undefined)).toEqualTypeOf<Promise<string>>();
    expectTypeOf(
      chat.stream({ method: "POST", path: "/v1/chat/completions", body: {} }, undefined),
    ).toEqualTypeOf<Promise<Response>>();
  });

  it("takes the contract's paths, each with the methods it has", () => {
    void studio.run({ method: "PUT", path: "/api/v1/traces/{id}", params: { id: "t" } }, undefined);
    // @ts-expect-error: no such path in the Studio contract
    void studio.run({ method: "GET", path: "/api/v1/projects" }, undefined);
    // @ts-expect-error: the trace route is PUT, not POST
    void studio.run({ method: "POST", path: "/api/v1/traces/{id}" }, undefined);
    // @ts-expect-error: a Studio path is not a chat path
    void chat.run({ method: "GET", path: "/api/v1/public/projects/{projectId}" }, undefined);
  });
});
