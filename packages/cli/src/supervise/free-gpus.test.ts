import { describe, expect, it } from "vitest";
import type { CliIo } from "../shared/io.js";
import { smiListing } from "../test/fleet-launch.js";
import { withFrontDoorQueue } from "./autoscaler.js";
import { freeGpuGroups } from "./free-gpus.js";

// Where an elastic fleet may start an instance: GPUs it does not hold and nobody else uses (a fine-tuning
// job keeps its GPUs), read from a stand-in nvidia-smi; and the front door's queue counted as waiting.

function ioWith(path: string): CliIo {
  return { out: () => {}, err: () => {}, env: { PATH: `${path}:/usr/bin:/bin` } };
}

describe("freeGpuGroups", () => {
  it("leaves out the GPUs the launch holds and those another process holds memory on", async () => {
    const io = ioWith(smiListing(4, [1]));
    const pool = { listed: undefined, fallback: ["0", "1"], perInstance: 1 };
    expect(await freeGpuGroups(pool, ["0"], io)).toEqual({ free: ["2", "3"], unchecked: false });
  });

  it("groups free GPUs T at a time for tensor parallelism, and keeps to --gpus when given", async () => {
    const io = ioWith(smiListing(6, [2]));
    const machine = { listed: undefined, fallback: [], perInstance: 2 };
    expect((await freeGpuGroups(machine, ["0,1"], io)).free).toEqual(["3,4"]);
    const listed = { listed: ["5", "4", "3"], fallback: [], perInstance: 1 };
    expect((await freeGpuGroups(listed, [], io)).free).toEqual(["5", "4", "3"]);
  });

  it("says when nvidia-smi cannot tell, and then leaves out only what the launch holds", async () => {
    const io = ioWith("/nonexistent");
    const pool = { listed: undefined, fallback: ["0", "1", "2"], perInstance: 1 };
    expect(await freeGpuGroups(pool, ["1"], io)).toEqual({ free: ["0", "2"], unchecked: true });
  });
});

describe("withFrontDoorQueue", () => {
  it("spreads HAProxy's queued requests over the instances as waiting, keeping the total", () => {
    const serving = [
      { waiting: 1, running: 2, kvUsage: 0.5 },
      { waiting: 0, running: 2, kvUsage: null },
    ];
    const spread = withFrontDoorQueue(serving, 5);
    expect(spread.map((one) => one.waiting)).toEqual([4, 2]);
    expect(spread.map((one) => one.running)).toEqual([2, 2]);
    expect(withFrontDoorQueue([], 3)).toEqual([]);
  });
});
