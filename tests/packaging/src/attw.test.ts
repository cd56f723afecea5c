import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { publishedPackages, tarballName } from "./published.js";

const require = createRequire(import.meta.url);
const attwCli = join(dirname(require.resolve("@arethetypeswrong/cli/package.json")), "dist", "index.js");

describe.each(publishedPackages())("$name", (pkg) => {
  it("resolves its types for every consumer arethetypeswrong checks (ESM-only profile)", () => {
    const tarball = join(inject("packDir"), tarballName(pkg));
    // The packages are ESM only, and Node >= 20.19 loads ESM from `require`: the esm-only profile
    // stops counting "CommonJS needs a dynamic import" as a problem and checks everything else.
    const result = spawnSync(process.execPath, [attwCli, tarball, "--profile", "esm-only", "--no-color"], {
      encoding: "utf8",
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  });
});
