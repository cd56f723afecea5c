// The one tsdown setup every published package builds with (build-time code: never exported from the
// runtime barrel). A package's tsdown.config.ts names its entries and what differs.
import type { UserConfig } from "tsdown";

/**
 * One ESM file per entry (and one bundled declaration file when `dts` is on), for Node 20.19+ and every
 * other runtime. `dependencies` stay imports; this private package is inlined.
 */
export function publishedLibrary(config: UserConfig & Pick<Required<UserConfig>, "entry">): UserConfig {
  return {
    tsconfig: "tsconfig.build.json",
    // Runs anywhere (browsers, Deno, Bun, edge) unless a package says `platform: "node"`.
    platform: "neutral",
    target: "es2022",
    dts: true,
    // `dist/*.js` + `dist/*.d.ts`: the packages are `"type": "module"`, so `exports` and `bin` stay plain.
    fixedExtension: false,
    deps: {
      // Nothing from node_modules may be inlined: real dependencies stay dependencies.
      onlyBundle: [],
      // This package also holds Node-only helpers, which tree-shaking drops from a neutral bundle; one that
      // survived would stay an import, and tests/packaging refuses a Node built-in in a library entry.
      neverBundle: [/^node:/],
    },
    ...config,
  };
}
