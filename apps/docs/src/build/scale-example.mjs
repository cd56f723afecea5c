// Run by scale-example.ts in a child process: the sandbox's streaming chat mock, then the real
// `studio-serve bench` sweeping it, writing its files to a temporary directory. Prints the CLI's table, the
// sweep's chart and the command, as JSON on stdout; removes the directory and stops the mock.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChatMock } from "@finetune-studio/testing";

const [cliEntry] = process.argv.slice(2);
const args = [
  "--sweep",
  "concurrency:1,2,4,8",
  "--requests",
  "16",
  "--slo",
  "ttft=250ms,tpot=50ms",
  "--target-rps",
  "40",
];
const mock = await startChatMock({ tokenDelayMs: 20 });
const dir = mkdtempSync(join(tmpdir(), "docs-scale-"));
try {
  const stdout = await new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [cliEntry, "bench", mock.url, ...args, "--out", dir],
      { timeout: 120_000 },
      (error, out, err) =>
        error ? reject(new Error(`studio-serve bench failed: ${err || error.message}`)) : resolve(out),
    );
  });
  const svg = readFileSync(join(dir, "latency.svg"), "utf8");
  process.stdout.write(
    JSON.stringify({
      command: `studio-serve bench http://127.0.0.1:8000 ${args.join(" ")}`,
      output: stdout,
      svg,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
  await mock.stop();
}
