import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { describe, expect, it } from "vitest";
import { publishedPackages } from "./published.js";

describe.each(publishedPackages())("$name", (pkg) => {
  it("has no publint problems, suggestions included", async () => {
    const { messages, pkg: manifest } = await publint({ pkgDir: pkg.dir, pack: "pnpm", strict: true });
    expect(messages.map((message) => formatMessage(message, manifest))).toEqual([]);
  });
});
