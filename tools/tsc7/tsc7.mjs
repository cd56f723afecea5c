#!/usr/bin/env node
// Runs TypeScript 7's tsc with the arguments given. TypeScript 7 names its command `tsc` too, and each
// package also has TypeScript 5.9 (tsdown's declaration bundler and openapi-typescript call its API), so
// the two cannot share node_modules/.bin: this package holds TypeScript 7 and answers to `tsc7`.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const root = dirname(require.resolve("typescript/package.json"));
// The native compiler itself, found as TypeScript's own launcher (bin/tsc) finds it: one child, which a
// signal to this process reaches, where the launcher would add a second process between them on Node 20.
const { default: exePath } = await import(pathToFileURL(join(root, "lib", "getExePath.js")).href);
const compiler = spawn(exePath(), process.argv.slice(2), { stdio: "inherit" });
let stoppedBy;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    stoppedBy = signal;
    compiler.kill(signal);
  });
}
compiler.on("error", (error) => {
  throw error;
});
// A check stopped by a signal (turbo stopping the run) is a failure, not a pass: the native compiler exits
// 0 on SIGTERM, so its code is not enough.
compiler.on("exit", (code) => {
  process.exitCode = stoppedBy === undefined ? (code ?? 1) : 128 + constants.signals[stoppedBy];
});
