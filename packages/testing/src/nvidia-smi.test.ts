import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { standInGpuUuid, writeStandInNvidiaSmi } from "./nvidia-smi.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the stand-in nvidia-smi", () => {
  it("lists its GPUs with -L, and the busy ones' UUIDs with --query-compute-apps", () => {
    const dir = mkdtempSync(join(tmpdir(), "smi-test-"));
    dirs.push(dir);
    writeStandInNvidiaSmi(dir, 3, [1]);
    const smi = (...args: string[]) => execFileSync(join(dir, "nvidia-smi"), args, { encoding: "utf8" });
    expect(smi("-L").trim().split("\n")).toEqual(
      [0, 1, 2].map((i) => `GPU ${i}: NVIDIA H100 (UUID: ${standInGpuUuid(i)})`),
    );
    expect(smi("--query-compute-apps=gpu_uuid", "--format=csv,noheader")).toBe(`${standInGpuUuid(1)}\n`);
  });
});
