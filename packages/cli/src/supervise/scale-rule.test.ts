import { HPA_DEFAULTS } from "@finetune-studio/serve-kit/internal";
import { describe, expect, it } from "vitest";
import { LAUNCH_FLAGS } from "../commands/launch.js";
import { parseServeArgs } from "../shared/serve-args.js";
import { HpaRule } from "./hpa-scale-rule.js";
import { parseLayout } from "./layout.js";
import { POLL_MS } from "./scale-rule.js";
import type { AutoscaleSettings } from "./types.js";

// --scale-rule: the settings it makes, and when the HPA's rule reads the fleet.

function scaling(...flags: string[]): AutoscaleSettings | undefined {
  const parsed = parseServeArgs("launch", ["full", "acme/m", "--instances", "1..4", ...flags], LAUNCH_FLAGS);
  if (parsed === "help") throw new Error("not a launch");
  return parseLayout(parsed).scaling;
}

describe("--scale-rule's settings", () => {
  it.each<[string, string[], Partial<AutoscaleSettings>]>([
    ["the window rule by default, on both signals", [], { rule: "window", signals: { queue: 5, kv: 0.8 } }],
    [
      "hpa on production-stack's queue alone",
      ["--scale-rule", "hpa"],
      { rule: "hpa", signals: { queue: 5 } },
    ],
    [
      "hpa with kv when --scale-on names it",
      ["--scale-rule", "hpa", "--scale-on", "queue=2,kv=0.7", "--scale-down-after", "300s"],
      { rule: "hpa", signals: { queue: 2, kv: 0.7 }, downAfterMs: 300_000 },
    ],
  ])("%s", (_name, flags, want) => {
    expect(scaling(...flags)).toMatchObject(want);
  });
});

describe("the HPA's rule reads the fleet at its syncs", () => {
  const settings = scaling("--scale-rule", "hpa") as AutoscaleSettings;
  const { syncMs } = HPA_DEFAULTS;

  it("once every sync period from the autoscaler's start, waking the autoscaler on time", () => {
    const rule = new HpaRule(settings, 1_000);
    expect(rule.readsAt(1_000 + syncMs - 1)).toBe(false);
    expect(rule.waitMs(1_000 + syncMs - 500)).toBe(500);
    expect(rule.waitMs(1_000)).toBe(POLL_MS);
    expect(rule.readsAt(1_000 + syncMs)).toBe(true);
    expect(rule.readsAt(1_000 + syncMs + 1)).toBe(false);
    expect(rule.readsAt(1_000 + 2 * syncMs)).toBe(true);
  });

  it("takes a sync missed while a step ran at the next look, then keeps the grid", () => {
    const rule = new HpaRule(settings, 0);
    expect(rule.readsAt(3 * syncMs + 7_000)).toBe(true);
    expect(rule.readsAt(4 * syncMs - 1)).toBe(false);
    expect(rule.readsAt(4 * syncMs)).toBe(true);
  });
});
