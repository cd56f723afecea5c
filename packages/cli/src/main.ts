#!/usr/bin/env node
// The `studio-serve` executable: real streams and environment around runCli.
import { runCli } from "./run.js";

try {
  process.exitCode = await runCli(process.argv.slice(2), {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
  });
} catch (error) {
  process.stderr.write(
    `studio-serve: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
}
