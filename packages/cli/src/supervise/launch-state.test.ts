import { processStartTicks } from "@finetune-studio/internal";
import { describe, expect, it } from "vitest";
import { tempDir } from "../test/cli-process.js";
import { type LaunchState, readLaunchState, writeLaunchState } from "./launch-state.js";

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
});
