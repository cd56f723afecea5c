import { ENGINE_OPTION_LIST } from "@finetune-studio/serve-kit";
import type { Snippet } from "./markdown.js";

// The serving guide's table of vLLM engine options, from serve-kit's one table: the guide cannot list an
// option the builders do not take, or miss one they do.

const cell = (text: string) => text.replaceAll("|", "\\|");

/** One row per engine option: the builder's field, vLLM's flag (also the CLI's), the chart key, what it does. */
export function engineOptionsTable(): Snippet {
  const rows = ENGINE_OPTION_LIST.map((option) => {
    const flag = option.cli.valueName === null ? `${option.flag}, --no-${option.flag.slice(2)}` : option.flag;
    const stack = option.stackKey === null ? "in `extraArgs`" : `\`vllmConfig.${option.stackKey}\``;
    const kinds = option.loraOnly ? " (LoRA only)" : "";
    return `| \`${option.key}\`${kinds} | \`${flag}\` | ${stack} | ${cell(option.cli.help)} |`;
  });
  return {
    lang: "markdown",
    code: [
      "| option | `vllm serve` and `studio-serve` flag | production-stack values | what it does |",
      "| --- | --- | --- | --- |",
      ...rows,
    ].join("\n"),
  };
}
