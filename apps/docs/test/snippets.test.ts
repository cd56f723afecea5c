import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { distDir, docsDir } from "../src/build/paths.js";
import { compileBlocks, typeScriptBlocks } from "./support/snippets.js";

// Every TypeScript block the site shows is compiled against the real packages, so the docs cannot rot.
const workDir = join(docsDir, "test-artifacts", "snippets");
const pagesWithCode = existsSync(distDir)
  ? readdirSync(distDir)
      .filter((file) => file.endsWith(".html"))
      .filter((file) => typeScriptBlocks(readFileSync(join(distDir, file), "utf8")).length > 0)
      .sort()
  : [];

describe("TypeScript shown in the docs", () => {
  it("the guides show TypeScript to check", () => {
    expect(pagesWithCode).toEqual(expect.arrayContaining(["quickstart.html", "serving.html"]));
  });

  it.each(pagesWithCode)("%s: every block compiles against the real packages", (page) => {
    const blocks = typeScriptBlocks(readFileSync(join(distDir, page), "utf8"));
    expect(compileBlocks(blocks, join(workDir, page.replace(/\.html$/, "")))).toEqual([]);
  });

  it("a block that misuses the client is caught", () => {
    const blocks = [
      {
        file: "wrong.ts",
        code: `import { createStudioClient } from "@finetune-studio/client";
const studio = createStudioClient({ baseUrl: "https://studio.example.net", token: "t" });
await studio.updateTrace("3d2f8a61-95c4-4b0e-a7d3-6e1f0c9b8a27", { score: "high" });
`,
      },
    ];
    const diagnostics = compileBlocks(blocks, join(workDir, "must-fail"));
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatch(/^wrong\.ts:3:.*not assignable to type 'number/);
  });

  it("block captions and HTML escaping survive the round trip", () => {
    const html = `<pre><code class="language-ts" data-lang="ts" data-file="a.ts">if (a &lt; b &amp;&amp; c) {}</code></pre>
<pre><code class="language-ts" data-lang="ts">x</code></pre><pre><code class="language-sh" data-lang="sh">ls</code></pre>`;
    expect(typeScriptBlocks(html)).toEqual([
      { file: "a.ts", code: "if (a < b && c) {}" },
      { file: "snippet-2.ts", code: "x" },
    ]);
  });
});
