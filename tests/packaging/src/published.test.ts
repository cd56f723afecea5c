import { describe, expect, it } from "vitest";
import { publishedPackages } from "./published.js";

describe("the published packages", () => {
  it("are exactly the four the release publishes", () => {
    expect(publishedPackages().map((pkg) => pkg.name)).toEqual([
      "@finetune-studio/cli",
      "@finetune-studio/client",
      "@finetune-studio/serve-kit",
      "@finetune-studio/types",
    ]);
  });
});
