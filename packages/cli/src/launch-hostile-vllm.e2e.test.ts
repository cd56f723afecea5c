import { spawn } from "node:child_process";
import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getFreePort, waitForOutput } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import {
  CLI,
  exitOf,
  fakeVllmEnv,
  launchWithStandIn,
  printedProcessGroup,
  processGroupMembers,
  startCli,
  tempDir,
} from "./test/cli-process.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// Launch under hostile output from vLLM, planted links in --log-dir, and
// bad timing at vLLM's exit. Each case would fail on the launch before it.

const running = stoppedAfterEach();

const launch = (extraEnv: NodeJS.ProcessEnv, more: string[] = []) =>
  launchWithStandIn(running, extraEnv, more);

function events(logDir: string): { event: string }[] {
  return readFileSync(join(logDir, "events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

/** The most memory a process has held (kB), from the kernel's own count. */
function peakKb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0);
}

describe("launch at vLLM's exit", { timeout: 180_000 }, () => {
  it("a crash (exit 3) just after ready: exit 3, the crash report, a crashed event, no pid file (three runs)", async () => {
    for (let run = 0; run < 3; run++) {
      const logDir = tempDir("launch-crash-");
      const { proc, port } = await launch(
        { FAKE_VLLM_PRISM: "0", FAKE_VLLM_EXIT_AFTER_ANSWER_MS: "1", FAKE_VLLM_CRASH_CODE: "3" },
        ["--log-dir", logDir],
      );
      expect(await exitOf(proc, 60_000)).toBe(3);
      expect(proc.output()).toMatch(/vLLM exited \(exit code 3\)\.\nIts last lines:[\s\S]*Engine core died/);
      expect(events(logDir).at(-1)).toMatchObject({ event: "crashed", exitCode: 3 });
      expect(existsSync(join(logDir, `vllm-${port}.pid`))).toBe(false);
    }
  });

  it("vLLM killed by SIGKILL while serving: launch exits 137 (128 + 9), as a shell reports it", async () => {
    const { proc, fake } = await launch({ FAKE_VLLM_PRISM: "0" });
    await waitForOutput(proc, /^ready: /m, 120_000);
    process.kill(fake.record()?.pid ?? 0, "SIGKILL");
    expect(await exitOf(proc, 30_000)).toBe(137);
    expect(proc.output()).toMatch(/signal SIGKILL, as the out-of-memory killer sends/);
  });

  it("Ctrl-C when the main process exits at once but a worker ignores SIGINT: the worker gets SIGTERM at once", async () => {
    const { proc } = await launch({ FAKE_VLLM_PRISM: "0", FAKE_VLLM_WORKER: "ignores-int" }, [
      "--stop-timeout",
      "60",
    ]);
    await waitForOutput(proc, /^ready: /m, 120_000);
    const pgid = printedProcessGroup(proc.output());
    proc.child.kill("SIGINT");
    // Not the 60 s of --stop-timeout: the worker is sent SIGTERM as soon as its parent is gone.
    expect(await exitOf(proc, 20_000)).toBe(0);
    expect(processGroupMembers(pgid)).toEqual([]);
  });
});

describe("launch --log-dir never follows a planted link", { timeout: 60_000 }, () => {
  it.each(["vllm-PORT.log", "events.jsonl", "vllm-PORT.pid"])(
    "a symbolic link at %s: refused before vLLM starts, its target untouched",
    async (name) => {
      const logDir = tempDir("launch-links-");
      const victim = join(tempDir("launch-victim-"), "precious");
      writeFileSync(victim, "keep me\n");
      const port = await getFreePort();
      symlinkSync(victim, join(logDir, name.replace("PORT", String(port))));
      const fake = fakeVllmEnv({ FAKE_VLLM_PRISM: "0" });
      const proc = startCli(
        ["launch", "full", "acme/m", "--port", String(port), "--log-dir", logDir],
        fake.env,
      );
      running.push(proc);
      expect(await exitOf(proc, 30_000)).toBe(1);
      expect(proc.output()).toMatch(/is a symbolic link; it is not followed/);
      expect(fake.record()).toBeUndefined();
      expect(readFileSync(victim, "utf8")).toBe("keep me\n");
    },
  );
});

describe("launch's memory stays bounded whatever vLLM writes", { timeout: 180_000 }, () => {
  it("a 48 MB progress bar with no newline before it listens", async () => {
    const logDir = tempDir("launch-flood-");
    const { proc } = await launch({ FAKE_VLLM_PRISM: "0", FAKE_VLLM_PROGRESS_MB: "48" }, [
      "--log-dir",
      logDir,
    ]);
    await waitForOutput(proc, /^ready: /m, 120_000);
    // Node itself takes 40-70 MB; re-joining the pending line on each chunk took 540-580 MB.
    expect(peakKb(proc.child.pid ?? 0)).toBeLessThan(200 * 1024);
    expect(proc.output()).toMatch(
      /Loading safetensors shards: {2}42%.*more characters not kept|42% \| 4\/10/,
    );
  });

  it("100 MB of lines while launch's stderr is a pipe nobody reads: vLLM waits, launch does not grow", async () => {
    const port = await getFreePort();
    const fake = fakeVllmEnv({ FAKE_VLLM_PRISM: "0", FAKE_VLLM_LINES_MB: "100" });
    const child = spawn(process.execPath, [CLI, "launch", "full", "acme/m", "--port", String(port)], {
      env: fake.env,
      stdio: ["ignore", "ignore", "pipe"],
      detached: true,
    });
    try {
      child.stderr.pause();
      let peak = 0;
      for (let i = 0; i < 30; i++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        peak = Math.max(peak, peakKb(child.pid ?? 0));
      }
      expect(peak).toBeLessThan(200 * 1024);
      expect(fake.record()?.pid).toBeGreaterThan(0);
    } finally {
      try {
        process.kill(-(child.pid ?? 0), "SIGKILL");
      } catch {}
      const vllm = fake.record()?.pid;
      if (vllm !== undefined) {
        try {
          process.kill(-vllm, "SIGKILL");
        } catch {}
      }
      child.stderr.destroy();
    }
  });
});
