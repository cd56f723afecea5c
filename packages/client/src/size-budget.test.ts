// The size budget: what the client adds to a browser app, whole and by the one function an app imports.
// esbuild bundles the package's sources as an app's bundler would (browser platform, ESM, minified,
// tree-shaken), openapi-fetch included, and the output is gzipped. Growing past a budget should be a
// decision, so raise it in the same commit as the code that needs it, and say why.
import { gzipSync } from "node:zlib";
import { bundleForBrowser } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";

/**
 * Issue #21's targets, in gzipped bytes: the whole entry 11,776 (11.5 KiB), createStudioClient alone 6,656
 * (6.5 KiB), createChatClient alone 9,216 (9.0 KiB). Not met: measured on 2026-11-26 at 13,508, 9,323 and
 * 12,135 after the core moved onto openapi-fetch's hooks and the stream onto its own SSE reader (openapi-fetch
 * alone is 2,598 of each). The budgets sit about 2% above that so that growth is a decision.
 * 2026-11-29: the core typed from the contract's paths (path parameters as openapi-fetch's `params.path`)
 * and split into functions under 60 lines took 24,268 to 24,454 minified bytes (studio) and 31,957 to
 * 32,164 (chat), gzipped within budget; their minified budgets rose by those ~200 bytes.
 */
const BUDGETS = {
  whole: { gzipped: 13_800, minified: 36_300 },
  studio: { gzipped: 9_550, minified: 24_500 },
  chat: { gzipped: 12_400, minified: 32_300 },
};

// The sources, as the build inlines them: dist/index.js holds openapi-fetch already, so only a build from
// the sources shows which packages went in (the bytes are the same).
const sources = new URL(".", import.meta.url).pathname;

/** The package a bundled file comes from: the name after its last node_modules/, else this one. */
function packageOf(input: string): string {
  const inDependency = input.split("node_modules/").at(-1);
  if (inDependency === undefined || inDependency === input) return "@finetune-studio/client";
  const [scopeOrName, name] = inDependency.split("/");
  return scopeOrName?.startsWith("@") ? `${scopeOrName}/${name}` : (scopeOrName ?? input);
}

/** What an app importing `names` (or everything) pays. */
async function measure(names: string) {
  // The sources reach the private internal package's barrel, whose Node-only helpers (process groups, the
  // port probe) the client never calls: tree-shaking drops them, and the check below proves no Node
  // import is left in what a browser would load.
  const contents = `export ${names} from "./index.ts";`;
  const result = await bundleForBrowser({ stdin: { contents, resolveDir: sources, loader: "ts" } });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  expect(new TextDecoder().decode(code)).not.toMatch(/["']node:/);
  // Workspace packages (the contract's limits from types, the private internal one) resolve to their own
  // folders and count as this one; a new dependency from the registry would show here first.
  const packages = [...new Set(Object.keys(result.metafile.inputs).map(packageOf))].sort();
  return { packages, minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength };
}

describe("size budget", () => {
  it.each([
    ["the whole public entry", "*", BUDGETS.whole],
    ["createStudioClient alone", "{ createStudioClient }", BUDGETS.studio],
    ["createChatClient alone (streaming included)", "{ createChatClient }", BUDGETS.chat],
  ])("bundles %s for browsers within budget", async (what, names, budget) => {
    const sizes = await measure(names);
    expect(sizes.packages).toEqual(["@finetune-studio/client", "openapi-fetch"]);
    expect(sizes.gzipped, `minified + gzipped bytes of ${what}`).toBeLessThanOrEqual(budget.gzipped);
    expect(sizes.minified, `minified bytes of ${what}`).toBeLessThanOrEqual(budget.minified);
  });
});
