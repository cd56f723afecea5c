import { describe, expect, it } from "vitest";
import { serverRootPath } from "./server-url.js";

describe("serverRootPath", () => {
  it.each([
    ["/", ""],
    ["", ""],
    ["/v1", ""],
    ["/v1/", ""],
    ["/v1//", ""],
    ["/vllm/v1", "/vllm"],
    ["/vllm/", "/vllm"],
    // Only a last segment that is exactly v1 is the OpenAI suffix.
    ["/v10", "/v10"],
    ["/api/v1x", "/api/v1x"],
    ["/v1/v1", "/v1"],
  ])("reads %j as the root path %j", (given, want) => {
    expect(serverRootPath(given)).toBe(want);
  });
});
