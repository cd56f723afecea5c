import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { leftGroupState, processStartTicks, stopLeftGroup } from "./left-group.js";

/** A sleeping process leading its own group, as launch starts HAProxy and vLLM. */
function sleeper() {
  const child = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
  const pid = child.pid as number;
  return { child, pid, exited: new Promise((resolve) => child.once("exit", resolve)) };
}

describe("process groups a killed launch left", { timeout: 20_000 }, () => {
  it("reads a process's start time, and none for a pid that does not exist", () => {
    expect(processStartTicks(process.pid)).toMatch(/^\d+$/);
    expect(processStartTicks(2 ** 22 + 7)).toBeUndefined();
  });

  it("never signals a group whose leader started at another time (a reused pid)", async () => {
    const { child, pid, exited } = sleeper();
    const ticks = processStartTicks(pid) as string;
    const otherTicks = String(Number(ticks) + 1);
    expect(leftGroupState(pid, otherTicks)).toBe("other");
    expect(await stopLeftGroup(pid, otherTicks, { graceMs: 100 })).toBe(false);
    expect(child.exitCode).toBeNull();
    expect(leftGroupState(pid, ticks)).toBe("ours");
    expect(await stopLeftGroup(pid, ticks, { graceMs: 1_000 })).toBe(true);
    await exited;
    expect(leftGroupState(pid, ticks)).toBe("gone");
  });

  it("kills a group that ignores its graceful signal once the grace is over", async () => {
    const child = spawn("sh", ["-c", "trap '' TERM; while :; do sleep 0.1; done"], {
      detached: true,
      stdio: "ignore",
    });
    const pid = child.pid as number;
    const ticks = processStartTicks(pid) as string;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    expect(await stopLeftGroup(pid, ticks, { graceMs: 300 })).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(leftGroupState(pid, ticks)).toBe("gone");
  });
});
