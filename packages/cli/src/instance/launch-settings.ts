import { type ChatClient, createChatClient } from "@finetune-studio/client";
import { buildServeCommand, type ServeCommand, ServeConfigError } from "@finetune-studio/serve-kit";
import { type CliIo, inHelp, UsageError } from "../shared/io.js";
import { LAUNCH_TIMEOUT_FLAG, LOG_DIR_FLAG, STOP_TIMEOUT_FLAG } from "../shared/launch-flags.js";
import { errorText } from "../shared/messages.js";
import { INHERITED_KEY_NOTE, type KeySource, keySource, type ParsedServeArgs } from "../shared/serve-args.js";
import { checkAdapterPaths } from "./adapter-paths.js";
import { checkLogDir } from "./log-file.js";

/** Everything launch will do, decided and checked before anything starts. */
export interface LaunchSettings {
  kind: "full" | "lora";
  built: ServeCommand;
  key: KeySource | undefined;
  chat: ChatClient;
  timeoutSeconds: number;
  stopGraceMs: number;
  /** Absolute; logs, events and the pid file go there. */
  logDir: string | undefined;
  /** The name of this vLLM instance in file names and events: `vllm-<port>`. */
  instance: string;
}

/**
 * Step 1: the key and every check, in one place, before anything is spawned: the serve options (by the
 * builder's rules, the key's included), the durations (by the one seconds rule), the log directory and
 * the client that will call the server (which checks its own options).
 */
export function readLaunchSettings(parsed: ParsedServeArgs, io: CliIo): LaunchSettings {
  const helpFor = `launch ${parsed.kind}`;
  const timeoutSeconds = inHelp(helpFor, () => parsed.get(LAUNCH_TIMEOUT_FLAG));
  const stopSeconds = inHelp(helpFor, () => parsed.get(STOP_TIMEOUT_FLAG));
  const logDir = checkLogDir(parsed.get(LOG_DIR_FLAG), helpFor);

  const key = keySource(parsed, io.env);
  const apiKey = key === undefined ? undefined : io.env[key.name];
  if (key !== undefined && !apiKey) {
    throw new UsageError(`--api-key-env: the environment variable ${key.name} is not set or empty`, helpFor);
  }
  let built: ServeCommand;
  try {
    built = buildServeCommand(apiKey === undefined ? parsed.options : { ...parsed.options, apiKey });
  } catch (error) {
    // The key's rule is the builder's, but the user knows it by its variable.
    if (error instanceof ServeConfigError && error.field === "apiKey" && key !== undefined) {
      throw new UsageError(`${key.name}: the key ${error.rule} (given ${error.given})`, helpFor);
    }
    throw error;
  }
  checkAdapterPaths(parsed.options, io.env, helpFor);
  let chat: ChatClient;
  try {
    chat = createChatClient({
      baseUrl: built.client.rootURL,
      ...(apiKey === undefined ? {} : { apiKey }),
      // The server runs on this machine, whatever address it listens on.
      allowInsecureHttp: true,
    });
  } catch (error) {
    throw new UsageError(`cannot call the server: ${errorText(error)}`, helpFor);
  }
  for (const warning of built.warnings) io.err(`warning: ${warning}\n`);
  if (key?.inherited === true) io.err(INHERITED_KEY_NOTE);
  return {
    kind: parsed.kind,
    built,
    key,
    chat,
    timeoutSeconds,
    stopGraceMs: stopSeconds * 1000,
    logDir,
    instance: `vllm-${built.listen.port}`,
  };
}
