#!/usr/bin/env node
// The \`studio-serve\` executable: real streams and environment around runCli.
import { runCli } from "./run.js";
import { ClosedOutput } from "./shared/closed-output.js";
import { ExitCode } from "./shared/exit-codes.js";
import { messageOf } from "./shared/messages.js";

const output = new ClosedOutput([process.stdout, process.stderr]);
let code: number;
try {
  code = await runCli(process.argv.slice(2), {
    out: (text) => output.write(process.stdout, text),
    err: (text) => output.write(process.stderr, text),
    env: process.env,
    errIsTerminal: process.stderr.isTTY === true,
    errCaughtUp: () => output.caughtUp(process.stderr),
    onOutputClosed: (listener) => output.onClosed(listener),
  });
} catch (error) {
  // A bug, not bad input: one line, no stack trace. Every command has stopped what it started by now.
  output.write(process.stderr, `studio-serve: unexpected error: ${messageOf(error)}\n`);
  code = ExitCode.Unexpected;
}
process.exitCode = code;
// Everything is stopped and written: should a handle still be open, it must not keep us running.
setTimeout(() => process.exit(code), 2_000).unref();
