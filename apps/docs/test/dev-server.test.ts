import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getFreePort, startProcess, waitForHttp } from "@finetune-studio/testing";
import { expect, it } from "vitest";
import { docsDir } from "../src/build/paths.js";

const tsxCli = createRequire(import.meta.url).resolve("tsx/cli");

// The test's limit is longer than the wait inside it, so that on a failure the finally block still runs.
it("the dev server builds the site and serves it on loopback, and stops when asked", async () => {
  // Its own output folder, so it never swaps dist/ under the other tests' feet; inside a temp folder of its
  // own, because the build stages the site beside its output (`<out>.staging`), and both must go.
  const root = mkdtempSync(join(tmpdir(), "docs-dev-"));
  const out = join(root, "site");
  const port = await getFreePort();
  const dev = startProcess(process.execPath, [tsxCli, "src/dev.ts", "--port", String(port), "--out", out], {
    cwd: docsDir,
  });
  try {
    const url = `http://127.0.0.1:${port}/serving.html`;
    await waitForHttp(url, { process: dev, isReady: (status) => status === 200, timeoutMs: 120_000 });
    expect(await (await fetch(url)).text()).toContain("vllm serve");
  } finally {
    await dev.stop();
    rmSync(root, { recursive: true, force: true });
  }
  expect(await dev.exited).toBe(0);
}, 180_000);
