import { UsageError } from "./io.js";

/** The variable a client command reads the server's key from without --api-key-env: the one vLLM reads. */
export const DEFAULT_KEY_VARIABLE = "VLLM_API_KEY";

/**
 * The server's key a client command sends: from the variable `--api-key-env` names (already checked to be
 * a name), else a `VLLM_API_KEY` in the environment. Never printed.
 */
export function readApiKey(name: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (name === undefined) return env[DEFAULT_KEY_VARIABLE] === "" ? undefined : env[DEFAULT_KEY_VARIABLE];
  const key = env[name];
  if (key === undefined || key === "") throw new UsageError(`--api-key-env: ${name} is not set`);
  return key;
}
