import { ENGINE_OPTION_LIST, STACK_OPTION_LIST } from "@finetune-studio/serve-kit";
import { describe, expect, it } from "vitest";
import { stack } from "../commands/stack.js";
import { STACK_FLAGS } from "./stack-args.js";

// `studio-serve stack` takes each stack option as the serve-kit table declares it: the flag, its value's
// name and its help line (with the default the code uses) come from the entry, and none is missing.

const declared = new Map(STACK_FLAGS.map((flag) => [`--${flag.name}`, flag]));

describe("the stack flags, from serve-kit's stack option table", () => {
  it.each(STACK_OPTION_LIST.map((option) => [option.key, option] as const))("%s", (key, option) => {
    const { cli } = option;
    if (cli.kind === "flag" || cli.kind === "switch") {
      const flag = declared.get(cli.flag);
      expect(flag, `${cli.flag} is declared`).toBeDefined();
      expect(flag?.field).toBe(key);
      expect(flag?.help).toBe(option.help);
      if (cli.kind === "flag") expect(flag?.usage).toBe(`${cli.flag} ${cli.valueName}`);
      // The help shows the line, default included, as the table gives it.
      expect(stack.help).toContain(option.help.split("\n")[0]);
    } else if (cli.kind === "flags") {
      for (const name of cli.flags) expect(declared.has(name), `${name} is declared`).toBe(true);
    } else {
      expect(ENGINE_OPTION_LIST.some((engine) => engine.flag === cli.flag)).toBe(true);
      expect(declared.has(cli.flag)).toBe(true);
    }
  });

  it("declares no flag twice", () => {
    expect(declared.size).toBe(STACK_FLAGS.length);
  });
});
