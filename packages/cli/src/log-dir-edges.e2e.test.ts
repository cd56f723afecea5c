import { existsSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { getFreePort } from "@finetune-studio/testing";
import { describe, expect, it } from "vitest";
import { exitOf, fakeVllmEnv, startCli, tempDir } from "./test/cli-process.js";
import { stoppedAfterEach } from "./test/stopped-after-each.js";

// Node's mkdirSync(dir, { recursive: true }) never returns when a parent exists but answers a mkdir of its
// child with ENOENT, as /proc does and a dangling link does: it spun at full CPU with the event loop blocked,
// deaf to SIGTERM. Each case must end within seconds (a spin would be "still running"), naming the flag.

const running = stoppedAfterEach();
const QUICKLY_MS = 20_000; // a CLI start on a busy machine; the spin never ended

function start(args: readonly string[]) {
  const fake = fakeVllmEnv({ FAKE_VLLM_PRISM: "0" });
  const proc = startCli(args, fake.env);
  running.push(proc);
  return { proc, fake };
}

/** `launch full acme/m --log-dir DIR` on a free port, with the stand-in vLLM. */
async function launchWithLogDir(dir: string) {
  return start(["launch", "full", "acme/m", "--port", String(await getFreePort()), "--log-dir", dir]);
}

describe("directories that cannot be made end at once, naming the flag", { timeout: 60_000 }, () => {
  it.each([["/proc/studio-logs"], ["/sys/studio-logs/deeper"], ["/dev/studio-logs"]])(
    "launch --log-dir %s is refused with exit code 2 before vLLM starts",
    async (dir) => {
      const { proc, fake } = await launchWithLogDir(dir);
      expect(await exitOf(proc, QUICKLY_MS)).toBe(2);
      expect(proc.output()).toMatch(/--log-dir: .* is under \/(proc|sys|dev), a kernel filesystem/);
      expect(fake.record()).toBeUndefined();
      expect(existsSync(dir)).toBe(false);
    },
  );

  it("launch --log-dir through a link into /proc fails at once with exit code 1, and vLLM never starts", async () => {
    const base = tempDir("proc-link-");
    symlinkSync("/proc", join(base, "link"));
    const dir = join(base, "link", "logs");
    const { proc, fake } = await launchWithLogDir(dir);
    expect(await exitOf(proc, QUICKLY_MS)).toBe(1);
    expect(proc.output()).toContain(`--log-dir: cannot write to ${dir} (ENOENT)`);
    expect(fake.record()).toBeUndefined();
  });

  it("grafana --out under /proc fails at once, naming --out", async () => {
    const { proc } = start(["grafana", "--out", "/proc/studio-dash/board.json"]);
    expect(await exitOf(proc, QUICKLY_MS)).toBe(1);
    expect(proc.output()).toMatch(/--out: .*cannot make the directory \(ENOENT\); nothing was written/);
  });
});
