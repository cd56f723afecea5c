import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { buildServeCommand, type ServeOptions } from "@finetune-studio/serve-kit";

const require = createRequire(import.meta.url);

interface Cli {
  readonly packageName: string;
  readonly binName: string;
  /** The bin's file, to run with node. */
  readonly entry: string;
  run(args: readonly string[]): string;
}

/** `studio-serve`, as @finetune-studio/cli's package.json publishes it. */
export function studioServe(): Cli {
  const manifestPath = require.resolve("@finetune-studio/cli/package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    name: string;
    bin: Record<string, string>;
  };
  const [binName, binPath] = Object.entries(manifest.bin)[0] ?? [];
  if (!binName || !binPath) throw new Error("@finetune-studio/cli publishes no bin");
  const entry = join(dirname(manifestPath), binPath);
  return {
    packageName: manifest.name,
    binName,
    entry,
    // stderr is kept for the error a failing run throws, not echoed into the build log.
    run: (args) =>
      execFileSync(process.execPath, [entry, ...args], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }),
  };
}

/**
 * The `studio-serve` lines the serving guide shows, checked against the real CLI at build time: `launch`
 * takes the same arguments as `command`, and `command` must print exactly what the builder builds for the
 * options the arguments stand for. A renamed flag or a changed default fails the build, not the reader.
 */
export function cliSnippet(options: ServeOptions, args: readonly string[]): string {
  const cli = studioServe();
  for (const arg of args) {
    // Shown unquoted, so they must need no quoting.
    if (!/^[\w./:=@-]+$/.test(arg)) throw new Error(`CLI argument needs quoting in the guide: ${arg}`);
  }
  const printed = cli.run(["command", ...args]).split("\n")[0];
  const built = buildServeCommand(options).shell;
  if (printed !== built) {
    throw new Error(
      `studio-serve command ${args.join(" ")} prints\n  ${printed}\nbut the builder builds\n  ${built}`,
    );
  }
  cli.run(["doctor", "--help"]);
  return [
    `npm install --global ${cli.packageName}`,
    `${cli.binName} doctor`,
    `${cli.binName} launch ${args.join(" ")}`,
  ].join("\n");
}

/**
 * The "Several GPUs on one machine" lines: a multi-instance launch, a rolling reload and a runtime adapter,
 * each flag checked against the real CLI's help at build time.
 */
export function fleetSnippet(
  launchArgs: readonly string[],
  loraLaunchArgs: readonly string[],
  port: number,
): string {
  const cli = studioServe();
  const launchHelp = cli.run(["launch", "--help"]);
  for (const flag of ["--instances", "--gpus", "--runtime-lora"]) {
    if (!launchHelp.includes(flag)) throw new Error(`studio-serve launch --help does not mention ${flag}`);
  }
  for (const command of ["reload", "stop"]) {
    if (!cli.run([command, "--help"]).includes("--port"))
      throw new Error(`studio-serve ${command} has no --port`);
  }
  if (!cli.run(["adapter", "--help"]).includes("adapter load <name> <path>")) {
    throw new Error("studio-serve adapter load changed its arguments");
  }
  return [
    "# Two vLLM instances (GPUs 0 and 1, ports 8001 and 8002) behind HAProxy on port 8000:",
    `${cli.binName} launch ${launchArgs.join(" ")} --instances 2`,
    "",
    "# From another terminal: restart them one at a time (new weights), no request failing.",
    `${cli.binName} reload --port ${port}`,
    "",
    "# Stop it all (also what a killed launch left running).",
    `${cli.binName} stop --port ${port}`,
    "",
    "# Adapters at run time need a LoRA launch (vLLM's --enable-lora) with --runtime-lora:",
    `${cli.binName} launch ${loraLaunchArgs.join(" ")} --instances 2 --runtime-lora`,
    "",
    "# From another terminal: load one more on every instance (a relative path is sent as its absolute one);",
    "# a reload loads it again.",
    `${cli.binName} adapter load sql-expert ./adapters/sql-expert --port ${port}`,
  ].join("\n");
}
