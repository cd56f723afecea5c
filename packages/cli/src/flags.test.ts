import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { countFlag, flagHelp, listFlag, parseFlags, secondsFlag, switchFlag } from "./shared/flags.js";
import { UsageError } from "./shared/io.js";
import { serverUrl } from "./shared/values.js";
import { runCapture } from "./test/run-cli.js";

const PLAN_MODEL = fileURLToPath(
  new URL("../../serve-kit/src/plan/fixtures/llama-3.1-8b-instruct", import.meta.url),
);

describe("a flag declared once: the parser, the default and the help read the declaration", () => {
  const requests = countFlag("requests", { min: 1, max: 1000, fallback: 100, help: "requests per load" });
  const wait = secondsFlag("wait", { min: 1, help: "seconds to wait" });
  const upstream = listFlag("upstream", { valueName: "host:port", help: "an instance; repeat" });
  const json = switchFlag("json", "JSON");
  const flags = [requests, wait, upstream, json];

  it("gives the declared default when the flag is absent, and the help line says the same default", () => {
    expect(parseFlags([], flags).get(requests)).toBe(100);
    expect(parseFlags([], flags).get(wait)).toBeUndefined();
    expect(flagHelp([requests])).toBe("  --requests N              requests per load (default 100)");
  });

  it("reads each value by its rule, naming the flag as typed when it refuses", () => {
    const parsed = parseFlags(["--requests", "7", "--wait", "30", "--json"], flags);
    expect([parsed.get(requests), parsed.get(wait), parsed.get(json)]).toEqual([7, 30, true]);
    expect(() => parseFlags(["--requests", "1e3"], flags).get(requests)).toThrow(
      new UsageError('--requests: must be a whole number from 1 to 1000 (given "1e3")'),
    );
    expect(() => parseFlags(["--wait", "0"], flags).get(wait)).toThrow(
      /--wait: must be a whole number of seconds/,
    );
  });

  it("refuses a single-value flag given twice, and keeps every use of a repeatable one", () => {
    expect(() => parseFlags(["--requests", "1", "--requests", "2"], flags)).toThrow(
      new UsageError('--requests: given 2 times ("1", "2"); give it once'),
    );
    const parsed = parseFlags(["--upstream", "a:1", "--upstream", "b:2"], flags);
    expect(parsed.get(upstream)).toEqual(["a:1", "b:2"]);
  });
});

describe("a server URL from the command line", () => {
  it("takes the /v1 base URL an OpenAI client uses as the same server as its root", () => {
    for (const text of [
      "http://127.0.0.1:8000/v1",
      "http://127.0.0.1:8000/v1/",
      "127.0.0.1:8000",
      "http://127.0.0.1:8000/",
    ])
      expect(serverUrl(text, "URL")).toBe("http://127.0.0.1:8000");
  });

  it("refuses another path, saying what it takes", () => {
    expect(() => serverUrl("http://127.0.0.1:8000/v1/models", "URL")).toThrow(
      /URL: must be the server's root URL, or its \/v1 base URL, without another path/,
    );
  });
});

describe("messages in the user's words", () => {
  it("a bad URL given to bench points to bench's help, not status's", async () => {
    const { code, stderr } = await runCapture(["bench", "ftp://127.0.0.1"]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'studio-serve: URL: must be http:// or https:// (given "ftp://127.0.0.1") (see studio-serve bench --help)\n',
    );
  });

  it.each([
    ["command", ["command", "full", "m", "--served-model-name", "a", "--served-model-name", "b"]],
    ["status", ["status", "127.0.0.1:8000", "--timeout", "1", "--timeout", "2"]],
    ["bench", ["bench", "127.0.0.1:8000", "--requests", "1", "--requests", "2"]],
    ["stop", ["stop", "--port", "8000", "--port", "8001"]],
    ["plan", ["plan", "m", "--gpu", "L4", "--gpu", "T4"]],
  ])("%s refuses a repeated single-value flag before doing anything", async (command, args) => {
    const { code, stderr } = await runCapture(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(new RegExp(`given 2 times .*; give it once \\(see studio-serve ${command}`));
  });

  it("shows a newline the user typed as \\n, never as a literal \\u000a", async () => {
    for (const args of [["a\nb"], ["status", "--a\nb"], ["adapter", "lo\nad", "x"]]) {
      const { code, stderr } = await runCapture(args);
      expect(code).toBe(2);
      expect(stderr).toContain("\\n");
      expect(stderr).not.toContain("\\u000a");
      expect(stderr.trim().split("\n")).toHaveLength(1);
    }
  });

  it.each([
    [["haproxy", "--upstream", "x", "--listen", "8000"], "--upstream #1: must be host:port"],
    [["haproxy", "--listen", "8000"], "--upstream: must list at least one host:port"],
    [
      ["haproxy", "--upstream", "127.0.0.1:1", "--listen", "8000", "--max-connections", "0"],
      "--max-connections: ",
    ],
    [
      ["haproxy", "--upstream", "127.0.0.1:1", "--listen", "8000", "--runtime-socket", "rel"],
      "--runtime-socket: ",
    ],
    [["nginx", "--upstream", "127.0.0.1:1", "--upstream", "y", "--listen", "8000"], "--upstream #2: "],
    [["prometheus", "--target", "x"], "--target #1: "],
    [["plan", PLAN_MODEL, "--gpu-memory", "0GB"], "--gpu-memory: "],
    [["plan", PLAN_MODEL, "--gpu", "L4", "--max-loras", "0"], "--max-loras: "],
  ])("a library's refusal names the flag that set the field: %j", async (args, message) => {
    const { code, stderr } = await runCapture(args, { PATH: "/nonexistent" });
    expect(code).toBe(2);
    expect(stderr).toMatch(new RegExp(`^studio-serve: ${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
    expect(stderr).not.toMatch(/servers|maxConnections|runtimeSocket|upstreams|targets|memoryBytes|maxLoras/);
  });

  it("names the flag, not the builder's option, when vLLM's flag after -- is already set", async () => {
    const { code, stderr } = await runCapture([
      "command",
      "full",
      "m",
      "--max-model-len",
      "4096",
      "--",
      "--max-model-len",
      "8192",
    ]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/use --max-model-len/);
    expect(stderr).not.toMatch(/maxModelLen/);
  });
});
