import { runCli } from "../run.js";
import type { CliIo } from "../shared/io.js";

/** Runs the CLI in this process with captured output. */
export async function runCapture(args: string[], env: NodeJS.ProcessEnv = {}) {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    env,
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}
