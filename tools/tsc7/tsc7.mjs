#!/usr/bin/env node
// Runs TypeScript 7's tsc with the arguments given. TypeScript 7 names its command `tsc` too, and each
// package also has TypeScript 5.9 (tsdown's declaration bundler and openapi-typescript call its API), so
// the two cannot share node_modules/.bin: this package holds TypeScript 7 and answers to `tsc7`.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const tsc = join(dirname(require.resolve("typescript/package.json")), "bin", "tsc");
const run = spawnSync(process.execPath, [tsc, ...process.argv.slice(2)], { stdio: "inherit" });
if (run.error) throw run.error;
// A compiler killed by a signal (turbo stopping the run) is a failure, not a pass.
process.exitCode = run.status ?? 1;
