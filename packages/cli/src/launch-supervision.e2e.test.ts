import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import {
  exitOf,
  launchWithStandIn,
  printedProcessGroup,
  processGroupMembers,
  tempDir,
} from "./test/cli-process.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// A stand-in vLLM that behaves like the real one (a main process plus an engine worker in its
// process group, sharing its output pipes; a slow or stubborn shutdown; a crash; the OOM killer). Whatever
// ends vLLM's main process, launch stops the whole group and exits with vLLM's code: each case checks with
// `ps` that no process of the group is left.

const running = stoppedAfterEach();

const launch = (extraEnv: NodeJS.ProcessEnv, more: string[] = []) =>
  launchWithStandIn(running, extraEnv, more);

describe("launch supervises vLLM's whole process group", { timeout: 180_000 }, () => {
  it("Ctrl-C: a worker that ignores SIGTERM is killed after --stop-timeout, and launch exits with vLLM's code", async () => {
    const { proc, fake } = await launch({ FAKE_VLLM_WORKER: "stubborn", FAKE_VLLM_SIGNAL_EXIT: "0" }, [
      "--stop-timeout",
      "2",
    ]);
    await waitForOutput(proc, /^ready: /m, 120_000);
    const pgid = printedProcessGroup(proc.output());
    const worker = fake.record()?.workerPid ?? 0;
    expect(processGroupMembers(pgid)).toContain(worker);
    proc.child.kill("SIGINT");
    expect(await exitOf(proc, 30_000)).toBe(0);
    expect(fake.record()?.signals).toEqual(["SIGINT"]);
    expect(processGroupMembers(pgid)).toEqual([]);
  });

  it("a crash before ready, with a worker alive: launch stops the worker and exits with the crash code", async () => {
    const { proc } = await launch({
      FAKE_VLLM_MODE: "crash",
      FAKE_VLLM_WORKER: "1",
      FAKE_VLLM_CRASH_CODE: "3",
      FAKE_VLLM_CRASH_LINES: "torch.OutOfMemoryError: CUDA out of memory.",
    });
    expect(await exitOf(proc, 60_000)).toBe(3);
    const pgid = printedProcessGroup(proc.output());
    expect(processGroupMembers(pgid)).toEqual([]);
    expect(proc.output()).toContain("vLLM exited (exit code 3) before it was ready");
    expect(proc.output()).toMatch(/hint: out of GPU memory/);
  });

  it("a crash after ready, with a stubborn worker: launch still exits, with vLLM's code", async () => {
    const { proc } = await launch(
      { FAKE_VLLM_WORKER: "stubborn", FAKE_VLLM_EXIT_AFTER_ANSWER_MS: "1000", FAKE_VLLM_CRASH_CODE: "9" },
      ["--stop-timeout", "1"],
    );
    await waitForOutput(proc, /^ready: /m, 120_000);
    expect(await exitOf(proc, 60_000)).toBe(9);
    expect(processGroupMembers(printedProcessGroup(proc.output()))).toEqual([]);
    expect(proc.output()).toMatch(/vLLM exited \(exit code 9\)\.\nIts last lines:[\s\S]*Engine core died/);
  });

  it("a vLLM that ignores SIGINT and SIGTERM is killed after --stop-timeout (exit 137)", async () => {
    const { proc } = await launch({ FAKE_VLLM_MODE: "hang", FAKE_VLLM_IGNORE_SIGNALS: "1" }, [
      "--stop-timeout",
      "1",
    ]);
    await waitForOutput(proc, /process group \d+/);
    await waitForOutput(proc, /Loading weights took forever/);
    proc.child.kill("SIGTERM");
    expect(await exitOf(proc, 30_000)).toBe(137);
    expect(processGroupMembers(printedProcessGroup(proc.output()))).toEqual([]);
  });

  it("a second Ctrl-C forces the stop at once", async () => {
    const { proc } = await launch(
      { FAKE_VLLM_MODE: "hang", FAKE_VLLM_IGNORE_SIGNALS: "1", FAKE_VLLM_WORKER: "stubborn" },
      ["--stop-timeout", "600"],
    );
    await waitForOutput(proc, /Loading weights took forever/);
    proc.child.kill("SIGINT");
    await waitForOutput(proc, /again to force/);
    proc.child.kill("SIGINT");
    expect(await exitOf(proc, 20_000)).toBe(137);
    expect(proc.output()).toContain("forcing vLLM to stop");
    expect(processGroupMembers(printedProcessGroup(proc.output()))).toEqual([]);
  });

  it.each(["SIGQUIT", "SIGHUP"] as const)(
    "%s is handled like SIGTERM: vLLM gets SIGTERM and its code is passed on",
    async (signal) => {
      const { proc, fake } = await launch({
        FAKE_VLLM_MODE: "hang",
        FAKE_VLLM_WORKER: "1",
        FAKE_VLLM_SIGNAL_EXIT: "5",
      });
      await waitForOutput(proc, /Loading weights took forever/);
      proc.child.kill(signal);
      expect(await exitOf(proc, 30_000)).toBe(5);
      expect(fake.record()?.signals).toEqual(["SIGTERM"]);
      expect(processGroupMembers(printedProcessGroup(proc.output()))).toEqual([]);
    },
  );

  it("a slow shutdown within --stop-timeout is waited for", async () => {
    const { proc, fake } = await launch({
      FAKE_VLLM_MODE: "hang",
      FAKE_VLLM_SHUTDOWN_MS: "1500",
      FAKE_VLLM_SIGNAL_EXIT: "0",
    });
    await waitForOutput(proc, /Loading weights took forever/);
    proc.child.kill("SIGINT");
    expect(await exitOf(proc, 30_000)).toBe(0);
    expect(fake.record()?.signals).toEqual(["SIGINT"]);
    expect(proc.output()).toContain("vLLM stopped (exit code 0)");
  });

  it("the OOM killer (SIGKILL) is named, and launch exits 137", async () => {
    const { proc } = await launch({ FAKE_VLLM_MODE: "oom", FAKE_VLLM_WORKER: "1" });
    expect(await exitOf(proc, 60_000)).toBe(137);
    expect(proc.output()).toMatch(
      /vLLM exited \(signal SIGKILL, as the out-of-memory killer sends\) before it was ready/,
    );
    expect(processGroupMembers(printedProcessGroup(proc.output()))).toEqual([]);
  });
});

describe("launch checks everything before it starts vLLM", { timeout: 60_000 }, () => {
  it.each([
    [
      "a VLLM_API_KEY outside Latin-1",
      { VLLM_API_KEY: "sk-ключ" },
      [],
      /VLLM_API_KEY: the key must be a non-empty string of Latin-1/,
    ],
    [
      "--timeout beyond what a timer holds",
      {},
      ["--timeout", "3000000"],
      /--timeout: must be a whole number of seconds from 1 to 2147483/,
    ],
    [
      "--stop-timeout that is not a number",
      {},
      ["--stop-timeout", "soon"],
      /--stop-timeout: must be a whole number/,
    ],
  ])(
    "%s: exit 2, nothing spawned, no secret or stack trace",
    async (_name, env: NodeJS.ProcessEnv, more: string[], message: RegExp) => {
      const { proc, fake } = await launch(env, more);
      expect(await exitOf(proc, 30_000)).toBe(2);
      expect(fake.record()).toBeUndefined();
      expect(proc.output()).toMatch(message);
      expect(proc.output()).not.toMatch(/ключ|\n\s+at /);
    },
  );
});

describe("launch keeps logs", { timeout: 180_000 }, () => {
  it("writes vLLM's output, its events as JSON lines and a pid file while it runs", async () => {
    const logDir = join(tempDir("launch-logs-"), "logs");
    const { proc, port } = await launch({ FAKE_VLLM_SIGNAL_EXIT: "0" }, ["--log-dir", logDir]);
    await waitForOutput(proc, /^ready: /m, 120_000);
    const pgid = printedProcessGroup(proc.output());
    const pidFile = join(logDir, `vllm-${port}.pid`);
    expect(readFileSync(pidFile, "utf8")).toBe(`${pgid}\n`);
    proc.child.kill("SIGINT");
    expect(await exitOf(proc, 30_000)).toBe(0);
    expect(existsSync(pidFile)).toBe(false);

    const log = readFileSync(join(logDir, `vllm-${port}.log`), "utf8");
    expect(log).toMatch(/^INFO .*vLLM API server version/m);
    expect(log).toContain(`Uvicorn running on http://127.0.0.1:${port}`);
    const events = readFileSync(join(logDir, "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.map((event) => event.event)).toEqual(["started", "ready", "stopped"]);
    for (const event of events) {
      expect(event.instance).toBe(`vllm-${port}`);
      expect(Number.isNaN(Date.parse(event.time))).toBe(false);
    }
    expect(events[0]).toMatchObject({
      pid: pgid,
      pgid,
      argv: expect.arrayContaining(["vllm", "serve", "acme/m"]),
    });
    expect(events[1]).toMatchObject({ url: `http://127.0.0.1:${port}/v1`, model: "acme/m" });
    expect(events[2]).toMatchObject({ reason: "signal SIGINT", exitCode: 0 });
  });

  it("records a crash with its last lines", async () => {
    const logDir = tempDir("launch-logs-");
    const { proc, port } = await launch(
      {
        FAKE_VLLM_MODE: "crash",
        FAKE_VLLM_CRASH_CODE: "4",
        FAKE_VLLM_CRASH_LINES: "Traceback|KeyError: 'rope'",
      },
      ["--log-dir", logDir],
    );
    expect(await exitOf(proc, 60_000)).toBe(4);
    const events = readFileSync(join(logDir, "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.map((event) => event.event)).toEqual(["started", "crashed"]);
    expect(events[1]).toMatchObject({
      exitCode: 4,
      signal: null,
      lastLines: expect.arrayContaining(["KeyError: 'rope'"]),
    });
    expect(readFileSync(join(logDir, `vllm-${port}.log`), "utf8")).toContain("KeyError: 'rope'");
  });
});
