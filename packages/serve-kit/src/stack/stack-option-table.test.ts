import { describe, expect, it } from "vitest";
import type { ServeOptions } from "../serve-options.js";
import { VLLM_STACK_KEYS, valueAt } from "../test/vllm-stack-chart.js";
import { buildStackScaledObject } from "./scaled-object.js";
import { buildStackCommands } from "./stack-commands.js";
import { STACK_OPTION_LIST, STACK_OPTIONS } from "./stack-option-table.js";
import type { StackOption, StackOptionKey } from "./stack-option-types.js";
import type { StackOptions } from "./stack-options.js";
import { buildStackValues } from "./stack-values.js";

// Walks the stack option table: every entry has each part, and each value lands where `goes` says.

const full: ServeOptions = { kind: "full", model: "acme/m" };
const lora: ServeOptions = { kind: "lora", baseModel: "acme/m", adapters: [{ name: "a", path: "/data/a" }] };
/** What an entry's example needs beside it to be valid. */
const NEEDS: Partial<Record<StackOptionKey, { config?: ServeOptions; options: StackOptions }>> = {
  adapterLoading: {
    config: lora,
    options: { apiKeySecret: { name: "k", key: "K" }, storage: { kind: "pvc", size: "1Gi" } },
  },
  sessionHeader: { options: { routing: "session" } },
  name: { options: { replicas: { min: 1, max: 3 } } },
  namespace: { options: { replicas: { min: 1, max: 3 } } },
  scaleOn: { options: { replicas: { min: 1, max: 3 } } },
  prometheusUrl: { options: { replicas: { min: 1, max: 3 } } },
  scaleDownAfterSeconds: { options: { replicas: { min: 1, max: 3 } } },
};

function outputs(option: StackOption<StackOptionKey>, withExample: boolean) {
  const need = NEEDS[option.key];
  const config = need?.config ?? full;
  const options = { ...need?.options, ...(withExample ? { [option.key]: option.example } : {}) };
  return {
    values: buildStackValues(config, options),
    scaledObject: buildStackScaledObject(config, options),
    commands: Object.values(buildStackCommands(config, options)).flatMap((step) =>
      Array.isArray(step) ? [] : [step.shell],
    ),
  };
}

describe("the stack option table", () => {
  it.each(STACK_OPTION_LIST.map((option) => [option.key, option] as const))(
    "%s has every part",
    (key, option) => {
      expect(STACK_OPTIONS[key]).toBe(option);
      expect(option.key).toBe(key);
      expect(typeof option.check).toBe("function");
      expect(["value", "derived", "none"]).toContain(option.default.kind);
      expect(option.goes.length).toBeGreaterThan(0);
      expect(option.example).toBeDefined();
      expect(option.help).toMatch(/^\S.* \(default.+\)$/s);
      expect(["flag", "switch", "flags", "engine"]).toContain(option.cli.kind);
      if (option.cli.kind === "flag") expect(option.cli.valueName).not.toBe("");
    },
  );

  it.each(STACK_OPTION_LIST.map((option) => [option.key, option] as const))(
    "%s lands where it says it goes",
    (_, option) => {
      const given = outputs(option, true);
      const without = outputs(option, false);
      for (const path of option.goes) {
        if (path === "commands") {
          expect(given.commands, path).not.toEqual(without.commands);
          continue;
        }
        if (path.startsWith("scaledObject.")) {
          expect(valueAt(given.scaledObject, path.slice("scaledObject.".length)), path).toBeDefined();
          continue;
        }
        expect(Object.keys(VLLM_STACK_KEYS), `${path} is a key the chart defines`).toContain(path);
        expect(valueAt(given.values, path), path).toBeDefined();
      }
      const changed = option.goes.some((path) =>
        path === "commands"
          ? JSON.stringify(given.commands) !== JSON.stringify(without.commands)
          : path.startsWith("scaledObject.")
            ? JSON.stringify(valueAt(given.scaledObject, path.slice(13))) !==
              JSON.stringify(valueAt(without.scaledObject, path.slice(13)))
            : JSON.stringify(valueAt(given.values, path)) !== JSON.stringify(valueAt(without.values, path)),
      );
      expect(changed, "the example changes what the builders write").toBe(true);
    },
  );

  it("gives a value default as the builders use it", () => {
    const values = buildStackValues(full);
    const spec = values.servingEngineSpec.modelSpec[0];
    expect(spec?.requestCPU).toBe(
      STACK_OPTIONS.cpu.default.kind === "value" && STACK_OPTIONS.cpu.default.value,
    );
    expect(spec?.requestMemory).toBe(
      STACK_OPTIONS.memory.default.kind === "value" && STACK_OPTIONS.memory.default.value,
    );
    expect(STACK_OPTIONS.cpu.help).toContain("(default 8)");
    expect(STACK_OPTIONS.replicas.help).toContain("(default 1)");
  });
});
