import { type ChatClient, StudioAuthError } from "@finetune-studio/client";
import { escapeForTerminal } from "@finetune-studio/internal";
import { ExitCode } from "../shared/exit-codes.js";
import type { CliIo } from "../shared/io.js";
import { messageOf } from "../shared/messages.js";
import { quoted } from "../shared/values.js";

/** The model to load: --model when the server serves it, else the first it lists; an exit code when none. */
export async function servedModel(
  chat: ChatClient,
  url: string,
  asked: string | undefined,
  io: CliIo,
): Promise<string | number> {
  let ids: string[];
  try {
    if (!(await chat.health({ timeoutMs: 10_000 }))) {
      io.err(`studio-serve: ${url} does not answer /health (stopped, or still loading its weights)\n`);
      return ExitCode.Failure;
    }
    ids = (await chat.listModels({ timeoutMs: 10_000 })).data.map((entry) => entry.id);
  } catch (error) {
    const hint = error instanceof StudioAuthError ? ": give the server's key with --api-key-env NAME" : "";
    io.err(`studio-serve: cannot read ${url}/v1/models: ${messageOf(error)}${hint}\n`);
    return ExitCode.Failure;
  }
  if (asked !== undefined && !ids.includes(asked)) {
    io.err(
      `studio-serve: --model: ${url} does not serve ${escapeForTerminal(quoted(asked))}; it serves ${escapeForTerminal(ids.join(", ") || "nothing")}\n`,
    );
    return ExitCode.Failure;
  }
  const model = asked ?? ids[0];
  if (model === undefined) {
    io.err(`studio-serve: ${url}/v1/models lists no model\n`);
    return ExitCode.Failure;
  }
  return model;
}
