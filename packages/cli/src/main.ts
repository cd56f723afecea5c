#!/usr/bin/env node
// The \`studio-serve\` executable: real streams and environment around runCli.
import { once } from "node:events";
import { runCli } from "./run.js";
import { ExitCode } from "./shared/exit-codes.js";
import { messageOf } from "./shared/messages.js";

let code: number;
try {
  code = await runCli(process.argv.slice(2), {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
    errCaughtUp: () =>
      process.stderr.writableNeedDrain ? once(process.stderr, "drain").then(() => undefined) : undefined,
  });
} catch (error) {
  // A bug, not bad input: one line, no stack trace. Every command has stopped what it started by now.
  process.stderr.write(`studio-serve: unexpected error: ${messageOf(error)}\n`);
  code = ExitCode.Unexpected;
}
process.exitCode = code;
// Everything is stopped and written: should a handle still be open, it must not keep us running.
setTimeout(() => process.exit(code), 2_000).unref();
