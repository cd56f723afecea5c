import { createChatClient, StudioAuthError, StudioTimeoutError } from "@finetune-studio/client";
import { buildServeCommand } from "@finetune-studio/serve-kit";
import { type ChildExit, exitCodeOf, supervise } from "../child.js";
import { clientSnippet } from "../client-snippet.js";
import { crashHints } from "../crash-hints.js";
import { ExitCode } from "../exit-codes.js";
import { SERVE_FLAGS } from "../help.js";
import { type CliIo, UsageError } from "../io.js";
import { LogLines, RecentLines } from "../log-lines.js";
import { checkPort } from "../port-check.js";
import { LAUNCH_OPTIONS, parseServeArgs } from "../serve-args.js";
import { findExecutable } from "../which.js";
import type { CliCommand } from "./command-type.js";

const DEFAULT_TIMEOUT_SECONDS = 1800;
const PROGRESS_EVERY_MS = 15_000;
/** The first completion can be slow: vLLM may still compile kernels or capture CUDA graphs. */
const SMOKE_TIMEOUT_MS = 300_000;
/** How long vLLM gets to stop after SIGTERM before SIGKILL, when we stop it ourselves. */
const STOP_GRACE_MS = 30_000;
const FORWARDED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** Why the readiness wait or the smoke call stopped early. */
class Stopped extends Error {
  constructor(readonly reason: "exited" | "signal") {
    super(reason);
  }
}

/**
 * `studio-serve launch`: starts vLLM, shows its logs, waits until it serves the model, sends a one-token
 * completion, prints the URL and a client snippet, and stays until vLLM exits, passing Ctrl-C on.
 */
async function runLaunch(args: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseServeArgs("launch", args, LAUNCH_OPTIONS);
  if (parsed === "help") {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const helpFor = `launch ${parsed.kind}`;
  const timeoutSeconds = parseTimeout(parsed.values.timeout, helpFor);
  // Without --api-key-env, a VLLM_API_KEY already set would reach vLLM anyway: use it rather than be refused.
  const apiKeyEnv = parsed.apiKeyEnv ?? (io.env.VLLM_API_KEY ? "VLLM_API_KEY" : undefined);
  const apiKey = apiKeyEnv === undefined ? undefined : io.env[apiKeyEnv];
  if (apiKeyEnv !== undefined && !apiKey) {
    throw new UsageError(`--api-key-env: the environment variable ${apiKeyEnv} is not set or empty`, helpFor);
  }
  const options = apiKey === undefined ? parsed.options : { ...parsed.options, apiKey };
  const built = buildServeCommand(options);
  const { host, port } = built.listen;
  for (const warning of built.warnings) io.err(`warning: ${warning}\n`);
  if (parsed.apiKeyEnv === undefined && apiKeyEnv !== undefined) {
    io.err("studio-serve: using the API key in VLLM_API_KEY\n");
  }

  const vllm = await findExecutable("vllm", io.env.PATH);
  if (vllm === undefined) {
    io.err(
      "studio-serve: vllm is not on PATH. Install it with: pip install vllm (Linux, Python 3.10+, an NVIDIA GPU)\n" +
        `  or run it in docker: studio-serve command ${parsed.kind} ... --docker\n`,
    );
    return ExitCode.NotFound;
  }
  const portState = await checkPort(host, port);
  if (portState.state === "in-use") {
    io.err(
      `studio-serve: --port: ${host}:${port} is already in use; stop what listens there or choose another --port\n`,
    );
    return ExitCode.Failure;
  }
  if (portState.state === "unusable") {
    io.err(`studio-serve: --host: cannot listen on ${host}:${port} (${portState.reason})\n`);
    return ExitCode.Failure;
  }

  const recent = new RecentLines();
  const streams = {
    stdout: new LogLines((line) => log(line)),
    stderr: new LogLines((line) => log(line)),
  };
  function log(line: string) {
    recent.add(line);
    io.err(`[vllm] ${line}\n`);
  }
  io.err(`studio-serve: running ${built.shell}\n`);
  const vllmProcess = supervise(vllm, built.argv.slice(1), { ...io.env, ...built.env }, (stream, chunk) =>
    streams[stream].push(chunk),
  );
  const exitedAndFlushed = vllmProcess.exited.then((exit) => {
    streams.stdout.flush();
    streams.stderr.flush();
    return exit;
  });

  const stop = new AbortController();
  void exitedAndFlushed.then(() => stop.abort(new Stopped("exited")));
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals === 1) {
      io.err(`studio-serve: ${signal}: stopping vLLM and waiting for it to exit (again to force)\n`);
      vllmProcess.signal(signal);
    } else {
      io.err("studio-serve: forcing vLLM to stop (SIGKILL)\n");
      vllmProcess.signal("SIGKILL");
    }
    stop.abort(new Stopped("signal"));
  };
  for (const signal of FORWARDED_SIGNALS) process.on(signal, onSignal);

  try {
    const model = built.client.model;
    io.err(
      `studio-serve: vLLM started (pid ${vllmProcess.child.pid ?? "?"}); waiting for ${built.client.baseURL} to serve "${model}". ` +
        "vLLM refuses connections until the weights are loaded, which can take minutes.\n",
    );
    const started = Date.now();
    const progress = setInterval(() => {
      io.err(`studio-serve: still loading (${formatDuration(Date.now() - started)}; vLLM is running)\n`);
    }, PROGRESS_EVERY_MS);
    const chat = createChatClient({
      baseUrl: built.client.rootURL,
      ...(apiKey === undefined ? {} : { apiKey }),
      // The server runs on this machine, whatever address it listens on.
      allowInsecureHttp: true,
    });
    try {
      await chat.waitUntilReady({ model, timeoutMs: timeoutSeconds * 1000, signal: stop.signal });
    } catch (error) {
      if (stop.signal.aborted) return await afterStop(exitedAndFlushed, signals > 0, recent, io);
      if (error instanceof StudioTimeoutError) {
        io.err(
          `studio-serve: vLLM was not ready after ${timeoutSeconds} s (${error.message}); stopping it. ` +
            "Large models can take longer: raise --timeout.\n",
        );
        reportLastLines(recent, io);
        await vllmProcess.stop(STOP_GRACE_MS);
        return ExitCode.Timeout;
      }
      io.err(`studio-serve: the server did not answer as vLLM should: ${message(error)}; stopping it\n`);
      await vllmProcess.stop(STOP_GRACE_MS);
      return ExitCode.Failure;
    } finally {
      clearInterval(progress);
    }

    try {
      await chat.complete(
        { model, messages: [{ role: "user", content: "Say hello." }], max_tokens: 1 },
        { signal: stop.signal, timeoutMs: SMOKE_TIMEOUT_MS },
      );
    } catch (error) {
      if (stop.signal.aborted) return await afterStop(exitedAndFlushed, signals > 0, recent, io);
      const hint =
        error instanceof StudioAuthError ? " (the server wants another API key: check --api-key-env)" : "";
      io.err(
        `studio-serve: the one-token smoke completion failed: ${message(error)}${hint}; stopping vLLM\n`,
      );
      await vllmProcess.stop(STOP_GRACE_MS);
      return ExitCode.SmokeFailed;
    }

    io.out(
      `ready: ${built.client.baseURL} serves "${model}" (smoke completion answered in ${formatDuration(Date.now() - started)})\n`,
    );
    io.out(clientSnippet(built.client, apiKeyEnv));
    io.err("studio-serve: press Ctrl-C to stop vLLM\n");
    const exit = await exitedAndFlushed;
    io.err(`studio-serve: vLLM ${signals === 0 ? "exited" : "stopped"} (${describeExit(exit)})\n`);
    return exitCodeOf(exit);
  } finally {
    for (const signal of FORWARDED_SIGNALS) process.removeListener(signal, onSignal);
  }
}

/** vLLM exited, or we were asked to stop: wait for it and report an early exit with hints. */
async function afterStop(
  exitedAndFlushed: Promise<ChildExit>,
  interrupted: boolean,
  recent: RecentLines,
  io: CliIo,
): Promise<number> {
  const exit = await exitedAndFlushed;
  if (interrupted) {
    io.err(`studio-serve: vLLM stopped (${describeExit(exit)})\n`);
    return exitCodeOf(exit);
  }
  if (exit.error !== undefined) {
    io.err(`studio-serve: could not start vllm: ${exit.error.message}\n`);
    return ExitCode.Failure;
  }
  io.err(`studio-serve: vLLM exited (${describeExit(exit)}) before it was ready.\n`);
  reportLastLines(recent, io);
  // A clean exit before serving is still a failure to serve.
  const code = exitCodeOf(exit);
  return code === 0 ? ExitCode.Failure : code;
}

function reportLastLines(recent: RecentLines, io: CliIo): void {
  const lines = recent.lines().slice(-15);
  if (lines.length > 0) io.err(`Its last lines:\n${lines.map((line) => `  | ${line}\n`).join("")}`);
  for (const hint of crashHints(recent.lines())) io.err(`hint: ${hint}\n`);
}

function parseTimeout(value: unknown, helpFor: string): number {
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS;
  if (typeof value !== "string" || !/^\d{1,7}$/.test(value) || Number(value) < 1) {
    throw new UsageError(
      `--timeout: must be a whole number of seconds, at least 1 (given ${JSON.stringify(value)})`,
      helpFor,
    );
  }
  return Number(value);
}

function describeExit(exit: ChildExit): string {
  if (exit.code !== null) return `exit code ${exit.code}`;
  if (exit.signal !== null) return `signal ${exit.signal}`;
  return exit.error?.message ?? "unknown";
}

function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const HELP = `studio-serve launch: start vLLM, wait until it serves the model, check it with a one-token
completion, then keep running until vLLM stops. Ctrl-C (or SIGTERM) stops vLLM; the exit code is vLLM's.

Usage:
  studio-serve launch full <model> [options] [-- vllm options]
  studio-serve launch lora <base> --adapter name=path [--adapter ...] [options] [-- vllm options]

${SERVE_FLAGS}

Waiting:
  --timeout S               give up (and stop vLLM) when it is not ready after S seconds
                            (default 1800: downloading and loading weights can take long)

vllm must be on PATH (pip install vllm). Without --api-key-env, a VLLM_API_KEY already in the
environment is used, since vLLM would read it anyway.
`;

export const launch: CliCommand = {
  name: "launch",
  synopsis: [["launch full|lora ... (same arguments)", "start vLLM, wait until it answers"]],
  help: HELP,
  run: runLaunch,
};
