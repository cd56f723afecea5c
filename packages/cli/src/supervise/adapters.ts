import { escapeForTerminal } from "@finetune-studio/internal";
import { loraRankRefusal } from "@finetune-studio/serve-kit/internal";
import { readAdapterSource } from "../instance/adapter-paths.js";
import type { ControlRequest } from "./control.js";
import type { Instance } from "./instance.js";
import { callLoraRoute } from "./lora-routes.js";
import type { Fleet } from "./types.js";

/** Loading an adapter reads it from disk and may compile kernels: minutes on a busy GPU. */
const LORA_ROUTE_TIMEOUT_MS = 120_000;

function loadOrUnload(
  fleet: Fleet,
  instance: Instance,
  action: "load" | "unload",
  name: string,
  path?: string,
) {
  return callLoraRoute(
    instance.plan.built.client.rootURL,
    action,
    path === undefined ? { lora_name: name } : { lora_name: name, lora_path: path },
    { ...(fleet.apiKey === undefined ? {} : { apiKey: fleet.apiKey }), timeoutMs: LORA_ROUTE_TIMEOUT_MS },
  );
}

/** Loads or unloads an adapter on every instance, reporting each; remembered for the next reload. */
export async function changeAdapter(
  fleet: Fleet,
  request: Extract<ControlRequest, { op: "adapter" }>,
  say: (line: string) => void,
): Promise<boolean> {
  const refusal = adapterRefusal(fleet, request);
  if (refusal !== undefined) {
    say(`refused before anything was sent: ${escapeForTerminal(refusal)}`);
    fleet.io.err(`studio-serve: adapter ${request.action} ${escapeForTerminal(request.name)}: refused\n`);
    return false;
  }
  const path = request.action === "load" ? request.path : undefined;
  const results = await Promise.all(
    fleet.instances.map((instance) => loadOrUnload(fleet, instance, request.action, request.name, path)),
  );
  for (const [i, result] of results.entries()) {
    const where = `instance ${i} (port ${fleet.instances[i]?.plan.built.listen.port})`;
    say(
      result.ok
        ? `${where}: ${escapeForTerminal(result.message)}`
        : `${where}: failed${result.status ? ` (HTTP ${result.status})` : ""}: ${escapeForTerminal(result.message)}`,
    );
  }
  if (request.action === "load" && results.some((result) => result.ok)) {
    fleet.adapters.set(request.name, request.path);
  }
  if (request.action === "unload") fleet.adapters.delete(request.name);
  const ok = results.every((result) => result.ok);
  fleet.io.err(
    `studio-serve: adapter ${request.action} ${escapeForTerminal(request.name)}: ${ok ? "done on every instance" : "failed on some instances"}\n`,
  );
  return ok;
}

/**
 * Why no instance would take the change, known before asking them: vLLM serves its LoRA routes only with
 * VLLM_ALLOW_RUNTIME_LORA_UPDATING=True (else a bare 404), loads adapters only with --enable-lora (else
 * "LoRA is not enabled", the model runner's add_lora), reads the adapter from this machine, and refuses one
 * whose rank is above its --max-lora-rank (PEFTHelper.validate_legal).
 */
function adapterRefusal(
  fleet: Fleet,
  request: Extract<ControlRequest, { op: "adapter" }>,
): string | undefined {
  const port = fleet.plan.built.listen.port;
  if (!fleet.instances.every((instance) => instance.io.env.VLLM_ALLOW_RUNTIME_LORA_UPDATING === "True")) {
    return `this launch was started without --runtime-lora, so vLLM serves no route to change adapters (it answers only "HTTP 404"): stop it (studio-serve stop --port ${port}) and launch again with --runtime-lora, or name the adapter at start (launch lora BASE --adapter NAME=PATH)`;
  }
  if (request.action === "unload") return undefined;
  if (!fleet.plan.built.argv.includes("--enable-lora")) {
    return `this launch serves its model without LoRA (launch full: vLLM runs without --enable-lora and refuses every adapter, "LoRA is not enabled"): stop it and serve the base model with launch lora BASE --adapter NAME=PATH --runtime-lora, which takes more adapters at run time`;
  }
  const source = readAdapterSource(request.path, fleet.io.env, process.cwd());
  if (source.kind === "refused") return `${request.path}: ${source.problem}`;
  const rankRefusal =
    source.kind === "local" ? loraRankRefusal(source.rank, maxLoraRankOf(fleet)) : undefined;
  return rankRefusal === undefined
    ? undefined
    : `adapter ${request.name}'s ${rankRefusal}; this launch's instances run with the rank they started with: stop it and launch again with that --max-lora-rank`;
}

/** The --max-lora-rank the instances were started with, or undefined for vLLM's default. */
function maxLoraRankOf(fleet: Fleet): number | undefined {
  const argv = fleet.plan.built.argv;
  const at = argv.indexOf("--max-lora-rank");
  return at === -1 ? undefined : Number(argv[at + 1]);
}

/**
 * Loads the runtime adapters again on a restarted (or added) instance; false at the first that fails. The
 * caller's `say` names what restarted it: a reload, or the autoscaler.
 */
export async function reapplyAdapters(
  fleet: Fleet,
  instance: Instance,
  say: (line: string) => void,
): Promise<boolean> {
  for (const [name, path] of fleet.adapters) {
    const result = await loadOrUnload(fleet, instance, "load", name, path);
    say(
      `instance ${instance.index}: adapter ${name} ${result.ok ? "loaded again" : `failed: ${escapeForTerminal(result.message)}`}`,
    );
    if (!result.ok) return false;
  }
  return true;
}
