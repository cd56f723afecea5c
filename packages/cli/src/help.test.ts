import { DEFAULT_SLO_OBJECTIVE, prometheusConfig, prometheusRules } from "@finetune-studio/serve-kit";
import {
  DEFAULT_DASHBOARD_TITLE,
  DEFAULT_READ_TIMEOUT_SECONDS,
  DEFAULT_SCRAPE_INTERVAL_SECONDS,
  MIN_FRONT_CONNECTIONS,
  THRESHOLD_DEFAULTS,
} from "@finetune-studio/serve-kit/internal";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "./commands/registry.js";
import { positional } from "./shared/command-args.js";
import { EXIT_CODE_MEANINGS, ExitCode } from "./shared/exit-codes.js";
import { mainHelp } from "./shared/help.js";
import { runCapture } from "./test/run-cli.js";

// The help is written from the declarations: usage from the declared positionals and required flags, each
// default from the constant the code applies, the exit codes from their one table.

async function help(command: string): Promise<string> {
  const { code, stdout } = await runCapture([command, "--help"]);
  expect(code).toBe(0);
  return stdout;
}

/** The help line of `--flag`, with its continuation lines, as one line of text. */
function lineOf(text: string, flag: string): string {
  const start = text.indexOf(`\n  ${flag} `);
  const rest = text.slice(start + 1).split("\n");
  const lines = [
    rest[0] ?? "",
    ...rest.slice(1).filter((_, i, all) => all.slice(0, i + 1).every((l) => l.startsWith("       "))),
  ];
  return lines.join(" ").replace(/\s+/g, " ");
}

describe("help shows the defaults the code uses", () => {
  it("prometheus: each threshold's and the scrape interval's default, from serve-kit's constants", async () => {
    const text = await help("prometheus");
    expect(lineOf(text, "--kv-cache F")).toContain(`(default ${THRESHOLD_DEFAULTS.kvCacheUsage})`);
    expect(lineOf(text, "--waiting N")).toContain(`(default ${THRESHOLD_DEFAULTS.waitingRequests})`);
    expect(lineOf(text, "--down-for M")).toContain(`(default ${THRESHOLD_DEFAULTS.downForMinutes})`);
    expect(lineOf(text, "--scrape-interval S")).toContain(`(default ${DEFAULT_SCRAPE_INTERVAL_SECONDS})`);
    expect(lineOf(text, "--objective F")).toContain(`(default ${DEFAULT_SLO_OBJECTIVE})`);
    // What the builder does without the flags is what the help says it does.
    const printed = await runCapture(["prometheus", "--target", "127.0.0.1:8001"]);
    expect(printed.stdout).toContain(`scrape_interval: ${DEFAULT_SCRAPE_INTERVAL_SECONDS}s`);
  });

  it("status, grafana, nginx: the objective, the title, the read timeout and the host", async () => {
    expect(lineOf(await help("status"), "--objective F")).toContain(`(default ${DEFAULT_SLO_OBJECTIVE})`);
    expect(lineOf(await help("grafana"), "--title T")).toContain(`(default ${DEFAULT_DASHBOARD_TITLE})`);
    const nginx = await help("nginx");
    expect(lineOf(nginx, "--read-timeout S")).toContain(`(default ${DEFAULT_READ_TIMEOUT_SECONDS})`);
    expect(lineOf(nginx, "--host H")).toContain("(default 127.0.0.1)");
  });

  it("launch --max-connections states its own default, last, and no other after it", async () => {
    const line = lineOf(await help("launch"), "--max-connections N");
    expect(line).toMatch(
      new RegExp(
        `\\(default 4 x N x --max-num-seqs, at least ${MIN_FRONT_CONNECTIONS}, within the open-file limit\\)$`,
      ),
    );
  });

  it("every flag's help says its default once", () => {
    for (const command of COMMANDS) {
      for (const flag of command.flags) {
        expect(
          flag.help.match(/\(default/g)?.length ?? 0,
          `${command.name} --${flag.name}`,
        ).toBeLessThanOrEqual(1);
      }
    }
  });
});

describe("usage from the declarations", () => {
  it("bench and status name what they act on, one usage line each way", async () => {
    expect(await help("bench")).toContain(
      "Usage:\n  studio-serve bench URL [options]          e.g. http://127.0.0.1:8000 (or its /v1 base URL)\n  studio-serve bench --launch P [options]   the launch serving on port P of this machine\n",
    );
    expect(await help("status")).toMatch(/\n {2}studio-serve status --launch P \[URL \.\.\.\] \[options\] /);
    expect(mainHelp(COMMANDS)).toContain("studio-serve status URL ... | --launch P [options]");
  });

  it("a rule declared with the flags is kept: exactly one server for bench, --count only with --watch", async () => {
    const both = await runCapture(["bench", "http://127.0.0.1:9", "--launch", "8000"]);
    expect([both.code, both.stderr]).toEqual([
      2,
      "studio-serve: give URL or --launch P, not both (see studio-serve bench --help)\n",
    ]);
    const two = await runCapture(["bench", "http://127.0.0.1:9", "http://127.0.0.1:10"]);
    expect(two.stderr).toContain('unexpected argument "http://127.0.0.1:10"');
    const count = await runCapture(["status", "127.0.0.1:9", "--count", "2"]);
    expect(count.stderr).toContain("--count: goes with --watch");
    expect(positional("URL", "a server", true).many).toBe(true);
  });
});

describe("usage of the commands of several forms, from their declarations", () => {
  it("a line per form, the same in the command's help and the main help", async () => {
    const main = mainHelp(COMMANDS);
    for (const [command, line] of [
      ["command", "studio-serve command full <model> [options] [-- vllm options]"],
      ["launch", "studio-serve launch lora <base> --adapter name=path ... [options] [-- vllm options]"],
      ["plan", "studio-serve plan MODEL [options]"],
      ["adapter", "studio-serve adapter unload <name> [--port P]"],
      ["reload", "studio-serve reload [--port P]"],
      ["stop", "studio-serve stop [--port P] [--stop-timeout S]"],
      ["stack", "studio-serve stack scaledobject full|lora ... --replicas MIN..MAX [options]"],
    ] as const) {
      expect(await help(command), command).toContain(`\n  ${line}`);
      expect(main, command).toContain(`\n  ${line}`);
    }
  });

  it("each positional a form declares is asked for, and no more are taken", async () => {
    for (const [args, message] of [
      [["plan", "--gpu", "H100"], "missing MODEL: a local directory or a hub repository"],
      [["adapter", "unload"], "<name>: must be 1 to 128 letters"],
      [["adapter", "unload", "sql", "/p"], 'unexpected argument "/p"'],
      [["adapter", "load", "sql", "/p", "more"], 'unexpected argument "more"'],
      [["stop", "now"], 'unexpected argument "now"'],
    ] as const) {
      const result = await runCapture([...args]);
      expect([result.code, result.stderr], args.join(" ")).toEqual([2, expect.stringContaining(message)]);
    }
  });
});

describe("exit codes, listed once for every command", () => {
  it("the main help lists each code of the table, stop's 127 and bench's 130 included", () => {
    const text = mainHelp(COMMANDS);
    for (const [code, command, meaning] of EXIT_CODE_MEANINGS) {
      const first = meaning.split("\n")[0] as string;
      expect(text).toContain(`  ${String(code).padEnd(5)}${command === "" ? "" : `${command}: `}${first}`);
    }
    expect(text).toMatch(/\n {2}127 {2}stop: nothing ran on that port/);
    expect(text).toMatch(/\n {2}130 {2}bench: Ctrl-C ended the run/);
    expect(ExitCode.Interrupted).toBe(130);
  });

  it("each command's help lists its own meaning of a code", async () => {
    expect(await help("stop")).toMatch(/\n {2}127 {2}nothing ran on that port/);
    expect(await help("bench")).toMatch(/\n {2}130 {2}Ctrl-C ended the run/);
    expect(await help("status")).toMatch(/\n {2}0 {4}done \(status: every instance is up/);
  });
});

describe("prometheus --target takes the server URLs status and bench take", () => {
  it.each([
    ["http://127.0.0.1:8001", "127.0.0.1:8001"],
    ["http://127.0.0.1:8001/v1", "127.0.0.1:8001"],
    ["127.0.0.1:8001/v1/", "127.0.0.1:8001"],
    ["http://[::1]:8001", "[::1]:8001"],
    ["http://vllm.internal:80", "vllm.internal:80"],
  ])("%s is scraped as %s", async (given, target) => {
    const { code, stdout } = await runCapture(["prometheus", "--target", given]);
    expect(code).toBe(0);
    expect(stdout).toBe(
      `# prometheus.yml\n${prometheusConfig({ targets: [target] })}---\n# studio-serve-rules.yml\n${prometheusRules()}`,
    );
  });

  it.each([
    [
      "https://127.0.0.1:8001",
      '--target #1: must be an http:// instance: the config scrapes over http (given "https://127.0.0.1:8001")',
    ],
    [
      "http://127.0.0.1",
      '--target #1: must name the instance\'s port, e.g. http://127.0.0.1:8000 (given "http://127.0.0.1")',
    ],
    [
      "http://127.0.0.1:8001/metrics",
      "--target #1: must be the server's root URL, or its /v1 base URL, without another path",
    ],
  ])("%s is refused, naming the rule", async (given, message) => {
    const { code, stderr } = await runCapture(["prometheus", "--target", given]);
    expect(code).toBe(2);
    expect(stderr).toContain(`studio-serve: ${message}`);
  });
});
