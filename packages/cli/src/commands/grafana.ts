import { basename, dirname } from "node:path";
import { escapeForTerminal } from "@finetune-studio/internal";
import { grafanaDashboard } from "@finetune-studio/serve-kit";
import { DEFAULT_DASHBOARD_TITLE } from "@finetune-studio/serve-kit/internal";
import { type CommandArgs, parseCommand, synopsisOf, usageLines } from "../shared/command-args.js";
import { JOB_FLAG, OBJECTIVE_FLAG, OBJECTIVE_NEEDS_SLO, SLO_FLAG } from "../shared/common-flags.js";
import { ExitCode } from "../shared/exit-codes.js";
import { describedAs, flagHelp, textFlag } from "../shared/flags.js";
import type { CliIo } from "../shared/io.js";
import { numberOrRaw } from "../shared/raw-values.js";
import { FileWriteError, writeFilesTogether } from "../shared/safe-files.js";
import type { CliCommand } from "./command-type.js";

const OUT_FILE_FLAG = textFlag("out", {
  valueName: "FILE",
  help: "write the dashboard's JSON to FILE (mode 0644)",
});
const TITLE_FLAG = textFlag("title", {
  valueName: "T",
  help: "the dashboard's title",
  shows: DEFAULT_DASHBOARD_TITLE,
  field: "title",
});
const FLAGS = [
  OUT_FILE_FLAG,
  TITLE_FLAG,
  JOB_FLAG,
  describedAs(
    SLO_FLAG,
    "add attainment and burn-rate panels on the rules prometheus --slo writes\n(give the same targets)",
  ),
  OBJECTIVE_FLAG,
];
const GRAFANA_ARGS: CommandArgs = {
  name: "grafana",
  positionals: [],
  flags: FLAGS,
  needs: [OBJECTIVE_NEEDS_SLO],
};

/** `studio-serve grafana`: serve-kit's Grafana dashboard as JSON, the same bytes on every run. */
function runGrafana(args: readonly string[], io: CliIo): number {
  const parsed = parseCommand(args, GRAFANA_ARGS);
  if (parsed.help) {
    io.out(HELP);
    return ExitCode.Ok;
  }
  const title = parsed.get(TITLE_FLAG);
  const jobName = parsed.get(JOB_FLAG);
  const slo = parsed.get(SLO_FLAG);
  const objective = parsed.get(OBJECTIVE_FLAG);
  // The builder checks every value; its errors name the field, which run.ts reports as the flag.
  const dashboard = grafanaDashboard({
    ...(title === undefined ? {} : { title }),
    ...(jobName === undefined ? {} : { jobName }),
    ...(slo === undefined ? {} : { slo }),
    ...(objective === undefined ? {} : { objective: numberOrRaw(objective) as number }),
  });
  const json = `${JSON.stringify(dashboard, null, 2)}\n`;
  const out = parsed.get(OUT_FILE_FLAG);
  if (out === undefined) {
    io.out(json);
    return ExitCode.Ok;
  }
  try {
    // No secret in it, and Grafana (or whoever imports it) must read it.
    writeFilesTogether(dirname(out), [{ name: basename(out), text: json }], "shared");
  } catch (error) {
    if (!(error instanceof FileWriteError)) throw error;
    io.err(`studio-serve: --out: ${escapeForTerminal(error.message)}\n`);
    return ExitCode.Failure;
  }
  io.out(`${out}\n`);
  io.err(
    `studio-serve: wrote ${out}; import it in Grafana (Dashboards > New > Import) and pick your Prometheus as its data source. Importing it again updates the same dashboard (uid ${dashboard.uid}).\n`,
  );
  return ExitCode.Ok;
}

const HELP = `studio-serve grafana: a Grafana dashboard for vLLM instances and a launch's front door.

${usageLines(GRAFANA_ARGS)}

Prints the dashboard's JSON (or writes it to FILE): a data-source and an instance variable; for the fleet
and each instance, requests running and waiting, KV-cache usage, tokens per second, time to first token,
time per output token and end-to-end latency (p50/p95/p99), prefix-cache hit rate, preemptions and
finished requests by reason; the front door's responses, 5xx share, queue and instance states (HAProxy's
own metrics, which prometheus --launch P scrapes); with --slo, the attainment the rules of
prometheus --slo record. Every run prints the same bytes, with the same uid: importing it again updates
the dashboard rather than adding a copy.

Options:
${flagHelp(FLAGS)}

Example:
  studio-serve prometheus --launch 8000 --out ./monitoring
  studio-serve grafana --out dashboard.json
`;

export const grafana: CliCommand = {
  name: "grafana",
  synopsis: [synopsisOf(GRAFANA_ARGS, "print a Grafana dashboard for them")],
  help: HELP,
  flags: FLAGS,
  run: runGrafana,
};
