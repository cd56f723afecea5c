import { UsageError } from "./io.js";

/**
 * The server's key a client command sends: from the variable `--api-key-env` names (already checked to be
 * a name), else a `VLLM_API_KEY` in the environment. Never printed.
 */
export function readApiKey(name: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (name === undefined) return env.VLLM_API_KEY === "" ? undefined : env.VLLM_API_KEY;
  const key = env[name];
  if (key === undefined || key === "") throw new UsageError(`--api-key-env: ${name} is not set`);
  return key;
}
