import { readFileSync } from "node:fs";
import { join } from "node:path";
import { processStartTicks } from "@finetune-studio/internal";
import { describe, expect, it } from "vitest";
import { tempDir } from "../test/cli-process.js";
import {
  type AutoscalerRecord,
  type LaunchState,
  readLaunchState,
  SCRAPE_TARGETS_FILE,
  writeLaunchState,
  writeScrapeTargets,
} from "./launch-state.js";

// The state file records each instance's state beside its process group, for `status` and whoever comes
// after a killed launch; what it does not recognise, it does not trust.

function state(instances: LaunchState["instances"]): LaunchState {
  const launch = { pid: process.pid, startTicks: processStartTicks(process.pid) ?? "1" };
  return { launch, host: "127.0.0.1", port: 8000, balancer: undefined, metricsPort: 8003, instances };
}

describe("the launch state file", () => {
  it("keeps each instance's life-cycle state", () => {
    const dir = tempDir("launch-state-");
    const written = state([
      { port: 8001, gpu: "0", state: "serving", group: undefined },
      { port: 8002, gpu: "1", state: "draining", group: undefined },
    ]);
    writeLaunchState(dir, written);
    expect(readLaunchState(dir)).toEqual(written);
  });

  it("reads a file without states (an older launch's)", () => {
    const dir = tempDir("launch-state-");
    writeLaunchState(dir, state([{ port: 8001, gpu: "", group: undefined }]));
    expect(readLaunchState(dir)?.instances[0]?.state).toBeUndefined();
  });

  it("refuses a state that is not one of the life cycle's", () => {
    const dir = tempDir("launch-state-");
    const bad = state([{ port: 8001, gpu: "0", state: "dozing" as "asleep", group: undefined }]);
    writeLaunchState(dir, bad);
    expect(readLaunchState(dir)).toBeUndefined();
  });

  it("keeps an elastic fleet's last decision, and refuses one it does not recognise", () => {
    const dir = tempDir("launch-state-");
    const autoscaler: AutoscalerRecord = {
      range: "1..3",
      rule: "hpa",
      action: "hold",
      reason: "at the minimum",
      atMs: 1,
    };
    const written = { ...state([{ port: 8001, gpu: "0", state: "serving", group: undefined }]), autoscaler };
    writeLaunchState(dir, written);
    expect(readLaunchState(dir)).toEqual(written);
    for (const bad of [
      { ...autoscaler, action: "sideways" },
      { ...autoscaler, rule: "keda" },
      { ...autoscaler, range: "1..3\u001b[2J" },
      { ...autoscaler, reason: "x".repeat(1001) },
    ]) {
      writeLaunchState(dir, { ...written, autoscaler: bad as AutoscalerRecord });
      expect(readLaunchState(dir), JSON.stringify(bad).slice(0, 60)).toBeUndefined();
    }
  });

  it("gives Prometheus the instances that answer /metrics (serving, draining, asleep), as file_sd's JSON", () => {
    const dir = tempDir("launch-state-");
    writeScrapeTargets(
      dir,
      state([
        { port: 8001, gpu: "0", state: "serving", group: undefined },
        { port: 8002, gpu: "1", state: "starting", group: undefined },
        { port: 8003, gpu: "2", state: "asleep", group: undefined },
        { port: 8004, gpu: "3", state: "draining", group: undefined },
      ]),
    );
    expect(JSON.parse(readFileSync(join(dir, SCRAPE_TARGETS_FILE), "utf8"))).toEqual([
      { targets: ["127.0.0.1:8001", "127.0.0.1:8003", "127.0.0.1:8004"], labels: {} },
    ]);
  });
});
