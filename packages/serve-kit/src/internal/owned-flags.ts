// The flags the builder writes, and the option to use instead. vLLM would take the later value (or, for
// `--model`, move it in front of the positional model), so an extra argument could silently override them.
const COMMON: Record<string, string> = {
  "--host": "the host option",
  "--port": "the port option",
  "--api-key": "the apiKey option, which travels as VLLM_API_KEY and never in argv",
  "--uds": "host and port (a Unix socket would leave the client config pointing nowhere)",
};

const LORA_FLAGS = ["--enable-lora", "--no-enable-lora", "--lora-modules", "--max-lora-rank", "--max-loras"];

export const OWNED_FLAGS: Record<"full" | "lora", Record<string, string>> = {
  full: {
    ...COMMON,
    "--model": "the model option",
    "--served-model-name": "the servedModelName option",
    ...Object.fromEntries(LORA_FLAGS.map((flag) => [flag, "kind 'lora' with adapters"])),
  },
  lora: {
    ...COMMON,
    "--model": "the baseModel option",
    "--enable-lora": "kind 'lora', which turns it on",
    "--no-enable-lora": "kind 'full' to serve without adapters",
    "--lora-modules": "the adapters option (vLLM keeps only the last --lora-modules)",
    "--max-lora-rank": "the maxLoraRank option",
    "--max-loras": "the maxLoras option",
  },
};

/**
 * The owned flag an extra argument would set, if any. vLLM's parser turns `_` into `-` in option names,
 * reads `--flag=value`, and (like any argparse parser) accepts an unambiguous prefix such as `--por`.
 */
export function ownedFlagSetBy(argument: string, owned: Record<string, string>): string | undefined {
  if (!argument.startsWith("--") || argument.length <= 3) return undefined;
  const name = `--${argument.slice(2).split("=", 1)[0]?.replaceAll("_", "-") ?? ""}`;
  const flags = Object.keys(owned);
  return flags.find((flag) => flag === name) ?? flags.find((flag) => flag.startsWith(name));
}
