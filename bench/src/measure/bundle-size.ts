// What each choice adds to a browser bundle: esbuild bundles an entry that imports it (browser platform,
// ESM, minified, tree-shaken, as an app's bundler would), then the output is gzipped at level 9.
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { bundleForBrowser } from "@finetune-studio/testing";
import type { Plugin } from "esbuild";
import { kib, ratio } from "../format.js";
import { markdownTable } from "../table.js";

const benchDir = fileURLToPath(new URL("../..", import.meta.url));

interface Entry {
  readonly name: string;
  /** The module an app would write: what it imports and exports is what survives tree-shaking. */
  readonly source: string;
}

const entries: readonly Entry[] = [
  { name: "@finetune-studio/client, whole public entry", source: 'export * from "@finetune-studio/client";' },
  {
    name: "@finetune-studio/client, createStudioClient only",
    source: 'export { createStudioClient } from "@finetune-studio/client";',
  },
  {
    name: "@finetune-studio/client, createChatClient only",
    source: 'export { createChatClient } from "@finetune-studio/client";',
  },
  { name: "openapi-fetch alone", source: 'export { default } from "openapi-fetch";' },
  // The OpenAI class is what a chat call needs; it carries every resource, so this is also its whole entry.
  { name: "openai, chat entry (the OpenAI class)", source: 'export { OpenAI } from "openai";' },
];

export interface BundleSize {
  readonly minified: number;
  readonly gzipped: number;
}

/** Minified and gzipped bytes of an entry's bundle, resolved from the bench package. */
export async function bundleSize(
  source: string,
  resolveDir = benchDir,
  plugins: Plugin[] = [],
): Promise<BundleSize> {
  const result = await bundleForBrowser({ stdin: { contents: source, resolveDir, loader: "js" }, plugins });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  return { minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength };
}

export async function measureBundleSizes(): Promise<string> {
  const sizes = await Promise.all(
    entries.map(async (entry) => ({ entry, size: await bundleSize(entry.source) })),
  );
  const reference = sizes[0]?.size.gzipped ?? 1;
  return markdownTable(
    ["bundle", "minified", "minified + gzip", "vs our whole client"],
    sizes.map(({ entry, size }) => [
      entry.name,
      kib(size.minified),
      kib(size.gzipped),
      ratio(size.gzipped, reference),
    ]),
    ["left"],
  );
}
