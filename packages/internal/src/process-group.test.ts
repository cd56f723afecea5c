import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { exitCodeOf, spawnGroup } from "./process-group.js";

/** The pids `ps` lists in a process group (zombies included: they would still hold a GPU's memory map). */
function groupMembers(pgid: number | undefined): number[] {
  const out = execFileSync("ps", ["-e", "-o", "pid=,pgid="], { encoding: "utf8" });
  return out
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, group]) => group === pgid)
    .map(([pid]) => pid as number);
}

// A main process that starts a worker in its group and prints its pid; the worker ignores SIGTERM.
const STUBBORN_WORKER = `sh -c 'trap "" TERM; while :; do sleep 0.1; done' & echo "worker $!"; wait`;

describe("spawnGroup", { timeout: 30_000 }, () => {
  it("stops a worker that outlives its main process and ignores SIGTERM, with SIGKILL after the grace", async () => {
    let output = "";
    const group = spawnGroup("sh", ["-c", `${STUBBORN_WORKER.replace("; wait", "; exit 3")}`], {
      onOutput: (_stream, chunk) => {
        output += chunk;
      },
    });
    const exit = await group.exited;
    expect(exitCodeOf(exit)).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(output).toMatch(/worker \d+/);
    expect(group.alive()).toBe(true);
    const started = Date.now();
    await group.stop({ graceMs: 500 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(group.alive()).toBe(false);
    expect(groupMembers(group.pgid)).toEqual([]);
  });

  it("kill() hurries a stop in progress", async () => {
    const group = spawnGroup("sh", ["-c", `trap "" TERM; ${STUBBORN_WORKER}`]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stopping = group.stop({ graceMs: 60_000 });
    group.kill();
    await stopping;
    expect(groupMembers(group.pgid)).toEqual([]);
    expect(exitCodeOf(await group.exited)).toBe(137);
  });

  it("reports a program that cannot start", async () => {
    const group = spawnGroup("/nonexistent/program", []);
    const exit = await group.exited;
    expect(exit.error).toBeInstanceOf(Error);
    expect(exitCodeOf(exit)).toBe(1);
    await group.stop({ graceMs: 100 });
  });
});
