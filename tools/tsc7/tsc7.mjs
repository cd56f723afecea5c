#!/usr/bin/env node
// Runs TypeScript 7's tsc with the arguments given. TypeScript 7 names its command `tsc` too, and each
// package also has TypeScript 5.9 (tsdown's declaration bundler and openapi-typescript call its API), so
// the two cannot share node_modules/.bin: this package holds TypeScript 7 and answers to `tsc7`.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

// The native compiler runs on to the end after SIGTERM, and then exits 0: a stop is passed on, made a
// SIGKILL after a second, and the check fails with the signal's code rather than passing. The handlers come
// first, so that a stop while the compiler is being found leaves nothing behind either.
let compiler;
let stoppedBy;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    stoppedBy = signal;
    if (compiler === undefined) process.exit(128 + constants.signals[signal]);
    compiler.kill(signal);
    setTimeout(() => compiler.kill("SIGKILL"), 1_000).unref();
  });
}

const require = createRequire(import.meta.url);
const root = dirname(require.resolve("typescript/package.json"));
// The native compiler itself, found as TypeScript's own launcher (bin/tsc) finds it: one child, which a
// signal to this process reaches, where the launcher would add a second process between them on Node 20.
const { default: exePath } = await import(pathToFileURL(join(root, "lib", "getExePath.js")).href);
compiler = spawn(exePath(), process.argv.slice(2), { stdio: "inherit" });
compiler.on("error", (error) => {
  throw error;
});
compiler.on("exit", (code) => {
  process.exitCode = stoppedBy === undefined ? (code ?? 1) : 128 + constants.signals[stoppedBy];
});
