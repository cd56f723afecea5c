import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildSite } from "../src/build/site.js";

const work = mkdtempSync(join(tmpdir(), "docs-site-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("buildSite", () => {
  it("adds a benchmark page, linked from the index, once bench/RESULTS.md exists", async () => {
    const results = join(work, "RESULTS.md");
    writeFileSync(results, "# Benchmark results\n\n| variant | p50 |\n| --- | --- |\n| client | 1.2 ms |\n");
    const out = join(work, "with-bench");
    await buildSite(out, { benchResultsPath: results });
    const bench = readFileSync(join(out, "bench.html"), "utf8");
    expect(bench).toContain("<td>1.2 ms</td>");
    expect(readFileSync(join(out, "index.html"), "utf8")).toContain('href="bench.html"');
  });

  it("has no benchmark page without the file", async () => {
    const out = join(work, "without-bench");
    await buildSite(out, { benchResultsPath: join(work, "missing.md") });
    expect(readdirSync(out)).not.toContain("bench.html");
    expect(readFileSync(join(out, "index.html"), "utf8")).not.toContain("bench.html");
  });

  it("loads every script and stylesheet from the site itself", async () => {
    const out = join(work, "without-bench");
    for (const page of readdirSync(out).filter((file) => file.endsWith(".html"))) {
      const html = readFileSync(join(out, page), "utf8");
      const sources = [...html.matchAll(/<(?:script|link|img)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map(
        (m) => m[1],
      );
      expect(sources.length).toBeGreaterThan(0);
      expect(sources.filter((source) => /^(?:[a-z]+:)?\/\//i.test(source ?? ""))).toEqual([]);
    }
    expect(readFileSync(join(out, "assets", "redoc.standalone.js"), "utf8")).not.toContain("cdn.redoc.ly");
  });
});
