import { spawn } from "node:child_process";
import { type FSWatcher, unwatchFile, watch, watchFile } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { benchResultsPath } from "./build/bench.js";
import { assetsDir, contentDir, distDir, docsDir } from "./build/paths.js";
import { startStaticServer } from "./server/static-server.js";

// `pnpm --filter @finetune-studio/docs dev`: builds the site, serves dist/ on loopback, and rebuilds when a
// guide, an asset, the build code, a contract or a package the guides are generated from changes. Each
// build runs in a fresh process, so edits to the build code itself take effect without a restart.

const { values } = parseArgs({
  options: {
    port: { type: "string", default: process.env.PORT ?? "4321" },
    host: { type: "string" },
    out: { type: "string" },
  },
});
const outDir = values.out ? resolve(values.out) : distDir;
const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** Our own sources: watched as trees. */
const sourceDirs = [contentDir, assetsDir, `${docsDir}src`];
/**
 * Outputs of other packages: polled by file, because their builds delete and recreate their dist/ folders,
 * which would silently end a directory watch. Each build rewrites the entry file, so it stands for the rest.
 */
const outputFiles = [
  require.resolve("@finetune-studio/types/studio.openapi.json"),
  require.resolve("@finetune-studio/types/chat-completions.openapi.json"),
  `${packageDir("@finetune-studio/serve-kit")}/dist/index.js`,
  `${packageDir("@finetune-studio/client")}/dist/index.js`,
  benchResultsPath,
];

let building = false;
let again = false;

/** Runs the build in a child process; a change that arrives meanwhile triggers one more build after it. */
function rebuild(reason: string): void {
  if (building) {
    again = true;
    return;
  }
  building = true;
  console.log(`docs: building (${reason})`);
  const child = spawn(
    process.execPath,
    [...process.execArgv, `${docsDir}src/build/main.ts`, "--out", outDir],
    {
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  child.on("exit", (code) => {
    console.log(
      code === 0 ? "docs: built; reload the page" : "docs: build failed; still serving the last good site",
    );
    building = false;
    if (again) {
      again = false;
      rebuild("more changes");
    }
  });
}

let timer: NodeJS.Timeout | undefined;
/** Editors and compilers write several events per save: wait for the burst to end. */
function changed(what: string): void {
  clearTimeout(timer);
  timer = setTimeout(() => rebuild(`${what} changed`), 200);
}
const watchers: FSWatcher[] = sourceDirs.map((dir) =>
  watch(dir, { recursive: true }, (_event, file) => changed(file ?? dir)),
);
for (const file of outputFiles) {
  // A missing file reports once with zeroed stats: only a new modification time is a change.
  watchFile(file, { interval: 500 }, (now, before) => {
    if (now.mtimeMs !== before.mtimeMs) changed(file);
  });
}

rebuild("start");
const server = await startStaticServer({
  root: outDir,
  host: values.host ?? "127.0.0.1",
  port: Number(values.port),
});
console.log(`docs: serving ${outDir} at ${server.url}`);

let stopping = false;
// A stop signal often comes twice (to the process group, and relayed by tsx's own process): the second one
// must not end the process by its default action while the server is closing.
const stop = () => {
  if (stopping) return;
  stopping = true;
  for (const watcher of watchers) watcher.close();
  for (const file of outputFiles) unwatchFile(file);
  void server.close().then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
