import { type BuildOptions, build } from "esbuild";

/**
 * What an app's bundler makes of an entry for a browser: one ESM file, tree-shaken, minified, es2022, kept
 * in memory with its metafile. `node:*` stays external: sources bundled directly reach the private internal
 * package, whose Node-only helpers tree-shaking drops (a caller that cares checks none is left).
 */
export function bundleForBrowser(input: Pick<BuildOptions, "entryPoints" | "stdin" | "plugins">) {
  return build({
    ...input,
    bundle: true,
    minify: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    external: ["node:*"],
    write: false,
    metafile: true,
    logLevel: "silent",
  });
}
