// The size budget: what the public entry adds to a browser app, with and without streaming. esbuild
// bundles the package's sources as an app's bundler would (browser platform, ESM, minified), openapi-fetch included,
// and the output is gzipped. "Without streaming" is the same entry with the stream module replaced by an
// empty class: what an app pays before it streams. Growing past a budget should be a decision, so raise it
// in the same commit as the code that needs it, and say why.
import { gzipSync } from "node:zlib";
import { bundleForBrowser } from "@finetune-studio/testing";
import type { Plugin } from "esbuild";
import { describe, expect, it } from "vitest";

/**
 * Issue #10's targets are 5,120 gzipped bytes without streaming and 6,656 with it (1.5 KiB more). Not met:
 * measured on 2026-11-23 at 14,607 with streaming (39,373 minified) and 11,034 without (29,610 minified),
 * after the core rework; the budgets sit about 3% above that so that growth is a decision.
 */
const BUDGETS = {
  whole: { gzipped: 15_100, minified: 40_600 },
  withoutStreaming: { gzipped: 11_400, minified: 30_500 },
};

// The sources, as the build inlines them: dist/index.js holds openapi-fetch and the SSE parser already, so
// only a build from the sources shows which packages went in (the bytes are the same).
const entry = new URL("./index.ts", import.meta.url).pathname;
const STREAM_MODULE = /[\\/]stream[\\/]chat-completion-stream\.ts$/;

/** The package a bundled file comes from: the name after its last node_modules/, else this one. */
function packageOf(input: string): string {
  const inDependency = input.split("node_modules/").at(-1);
  if (inDependency === undefined || inDependency === input) return "@finetune-studio/client";
  const [scopeOrName, name] = inDependency.split("/");
  return scopeOrName?.startsWith("@") ? `${scopeOrName}/${name}` : (scopeOrName ?? input);
}

async function measure(from: string, plugins: Plugin[] = []) {
  // The sources reach the private internal package's barrel, whose Node-only helpers (process groups, the
  // port probe) the client never calls: tree-shaking drops them, and the check below proves no Node
  // import is left in what a browser would load.
  const result = await bundleForBrowser({ entryPoints: [from], plugins });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  expect(new TextDecoder().decode(code)).not.toMatch(/["']node:/);
  // Workspace packages (the contract's limits from types, the private internal one) resolve to their own
  // folders and count as this one; a new dependency from the registry would show here first.
  const packages = [...new Set(Object.keys(result.metafile.inputs).map(packageOf))].sort();
  return { packages, minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength };
}

describe("size budget", () => {
  it("bundles the whole public entry for browsers within budget", async () => {
    const sizes = await measure(entry);
    expect(sizes.packages).toEqual(["@finetune-studio/client", "eventsource-parser", "openapi-fetch"]);
    expect(sizes.gzipped, `minified + gzipped bytes of ${entry}`).toBeLessThanOrEqual(BUDGETS.whole.gzipped);
    expect(sizes.minified, `minified bytes of ${entry}`).toBeLessThanOrEqual(BUDGETS.whole.minified);
  });

  it("bundles the entry without streaming within its budget", async () => {
    let stubbed = 0;
    const withoutStreaming: Plugin = {
      name: "without-streaming",
      setup(esbuild) {
        esbuild.onLoad({ filter: STREAM_MODULE }, () => {
          stubbed++;
          return { contents: "export class ChatCompletionStream {}", loader: "js" };
        });
      },
    };
    const sizes = await measure(entry, [withoutStreaming]);
    // The stub took the stream's place (a new layout of dist must not make this a second "whole" measure),
    // and with it went the SSE parser.
    expect(stubbed).toBe(1);
    expect(sizes.packages).toEqual(["@finetune-studio/client", "openapi-fetch"]);
    expect(sizes.gzipped, "minified + gzipped bytes without streaming").toBeLessThanOrEqual(
      BUDGETS.withoutStreaming.gzipped,
    );
    expect(sizes.minified, "minified bytes without streaming").toBeLessThanOrEqual(
      BUDGETS.withoutStreaming.minified,
    );
  });
});
