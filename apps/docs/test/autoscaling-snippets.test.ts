import { DEFAULT_SCALE_SIGNALS } from "@finetune-studio/serve-kit";
import { describe, expect, it } from "vitest";
import { autoscalingSnippets, helpDefault } from "../src/build/autoscaling-snippets.js";

// The autoscaling guide's table of defaults is read from the CLI's help: it states what the code uses.

describe("the autoscaling guide's defaults", () => {
  it("are the CLI's: the signals serve-kit defaults to, on one machine and on Kubernetes", () => {
    const table = autoscalingSnippets()["autoscale-defaults"]?.code ?? "";
    const signals = `queue=${DEFAULT_SCALE_SIGNALS.queue},kv=${DEFAULT_SCALE_SIGNALS.kv}`;
    expect(table).toContain(`| \`--scale-on\` | \`${signals}\` | \`${signals}\` |`);
    expect(table).toMatch(/\| `--scale-down-after` \| `5m` \| `5m` \|/);
    expect(table).toMatch(/\| `--idle` \| `stop` \|/);
    expect(table).toMatch(/\| `--scale-rule` \| `window` \| \(the HPA's, which `hpa` plays\) \|/);
  });

  it("reads a default that wraps onto the next line, and refuses a flag that states none", () => {
    const help =
      "  --a X   first line\n          second (default 7 with a range)\n  --b Y   no default here\n";
    expect(helpDefault(help, "a")).toBe("7");
    expect(() => helpDefault(help, "b")).toThrow(/--b's help states no default/);
    expect(() => helpDefault(help, "c")).toThrow(/--c is not in the help/);
  });
});
