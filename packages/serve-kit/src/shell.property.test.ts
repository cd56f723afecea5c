import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildDockerCommand, buildServeCommand, type LoraAdapter } from "./index.js";
import { toShellText } from "./internal/shell.js";
import { hasControlCharacter } from "./internal/text.js";

/** Runs `text` (a command line) through /bin/sh and returns the words the command would receive. */
function wordsAfterShellParsing(text: string): string[] {
  // printf receives exactly the words the shell makes of the command line, and prints each NUL-terminated.
  const out = execFileSync("/bin/sh", ["-c", `printf '%s\\0' ${text}`], { encoding: "utf8" });
  return out.split("\0").slice(0, -1);
}

const META = [..."'\"\\$`!*?[]{}()<>|&;#~= ,.:/-%@^+\t"];
const char = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...META) },
  { weight: 3, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
);
/**
 * A value the builder accepts as a model or adapter path: anything printable, not blank, not an option. The
 * builder's own rule for control characters (C0, DEL, C1, bidirectional and line separators), not a copy:
 * a copy that knew only C0 and DEL drew U+2028 now and then, and the builder refused it.
 */
const reference = fc
  .string({ unit: char, minLength: 1, maxLength: 40 })
  .filter((s) => s.trim() !== "" && !s.startsWith("-") && !hasControlCharacter(s));
const adapterName = fc.stringMatching(/^[A-Za-z0-9._][A-Za-z0-9._-]{0,15}$/);
const adapters = fc.uniqueArray(fc.record({ name: adapterName, path: reference }), {
  minLength: 1,
  maxLength: 4,
  selector: (adapter) => adapter.name,
});

// How vLLM's LoRAParserAction reads one --lora-modules value.
function vllmReadsLoraModule(item: string): LoraAdapter {
  if (item.includes("=") && !item.includes(",")) {
    const parts = item.split("=");
    // Python's `name, path = item.split("=")` fails unless there are exactly two parts.
    if (parts.length !== 2) throw new Error(`vLLM cannot unpack ${item}`);
    return { name: parts[0] ?? "", path: parts[1] ?? "" };
  }
  const parsed = JSON.parse(item) as LoraAdapter;
  return { name: parsed.name, path: parsed.path };
}

// Each run parses through a real shell: a second alone, ten on a busy 2-core machine under turbo.
describe("shell text parses back to exactly argv", { timeout: 60_000 }, () => {
  it("for any words without NUL", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: char, maxLength: 20 }).filter((w) => !w.includes("\0")),
          { minLength: 1, maxLength: 6 },
        ),
        (words) => {
          const argv = ["vllm", ...words];
          expect(wordsAfterShellParsing(toShellText(argv))).toEqual(argv);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("for full serves with any model path and served name", () => {
    fc.assert(
      fc.property(reference, fc.option(adapterName, { nil: undefined }), (model, servedModelName) => {
        const command = buildServeCommand({
          kind: "full",
          model,
          ...(servedModelName ? { servedModelName } : {}),
        });
        expect(wordsAfterShellParsing(command.shell)).toEqual(command.argv);
        expect(command.argv[2]).toBe(model);
      }),
      { numRuns: 150 },
    );
  });

  it("for LoRA serves with any base model, adapter names and adapter paths", () => {
    fc.assert(
      fc.property(reference, adapters, (baseModel, given) => {
        // An adapter named like the base model is refused (vLLM would serve only one of the two).
        fc.pre(given.every((adapter) => adapter.name !== baseModel));
        const command = buildServeCommand({ kind: "lora", baseModel, adapters: given });
        expect(wordsAfterShellParsing(command.shell)).toEqual(command.argv);
        const start = command.argv.indexOf("--lora-modules") + 1;
        const values = command.argv.slice(start, start + given.length);
        // Each value reads back as its adapter, and none looks like an option to vLLM's parser.
        expect(values.map(vllmReadsLoraModule)).toEqual(given);
        for (const value of values) expect(value.startsWith("-")).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it("for docker commands with hub repositories and absolute paths", () => {
    // Under /models: `/` itself and a whole home are refused as mount sources (hostile-input.test.ts).
    const absolute = reference.map((s) => `/models/${s.replaceAll(":", "_")}`);
    fc.assert(
      fc.property(
        fc.oneof(
          absolute,
          // A hub repository: anything that is neither absolute (mounted) nor relative (refused).
          reference.filter((s) => !/^(\/|~|\.\.?(\/|$))/.test(s)),
        ),
        adapters,
        (baseModel, given) => {
          fc.pre(given.every((adapter) => adapter.name !== baseModel));
          const command = buildDockerCommand(
            {
              kind: "lora",
              baseModel,
              adapters: given.map((a) => ({ ...a, path: `/models/${a.path.replaceAll(":", "_")}` })),
            },
            { hfCacheDir: "/home/me/.cache/huggingface" },
          );
          expect(wordsAfterShellParsing(command.shell)).toEqual(command.argv);
        },
      ),
      { numRuns: 100 },
    );
  });
});
