import { parseArgs } from "node:util";

export interface SandboxOptions {
  studioPort: number;
  chatPort: number;
  docsPort: number;
  /** Run the walkthrough, print the summary, then stop everything (for scripts and tests). */
  once: boolean;
}

export const services = [
  {
    key: "studioPort",
    flag: "--studio-port",
    env: "SANDBOX_STUDIO_PORT",
    fallback: 4010,
    what: "the Studio API mock",
  },
  {
    key: "chatPort",
    flag: "--chat-port",
    env: "SANDBOX_CHAT_PORT",
    fallback: 4011,
    what: "the chat-completions mock",
  },
  { key: "docsPort", flag: "--docs-port", env: "SANDBOX_DOCS_PORT", fallback: 4000, what: "the docs site" },
] as const;

export const usage = `Usage: pnpm start [-- options]

Runs a Prism mock of the Studio API and a streaming mock of the chat-completions server, serves the
docs, and walks through the SDK against them. Ctrl-C stops everything.

Options (or environment variables):
${services.map((s) => `${`  ${s.flag} <port>`.padEnd(24)}${s.what} (${s.env}, default ${s.fallback})`).join("\n")}
  --once                  run the walkthrough, then stop
  --help                  show this help`;

export class UsageError extends Error {}

function parsePort(text: string, source: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) {
    throw new UsageError(`${source} must be a port number from 1 to 65535, got ${JSON.stringify(text)}`);
  }
  return port;
}

/** Ports come from flags first, then the environment, then the defaults. Returns undefined for --help. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): SandboxOptions | undefined {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        "studio-port": { type: "string" },
        "chat-port": { type: "string" },
        "docs-port": { type: "string" },
        once: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.values.help) return undefined;
  const options = { once: parsed.values.once === true } as SandboxOptions;
  for (const service of services) {
    const flagValue = parsed.values[service.flag.slice(2)];
    const envValue = env[service.env];
    options[service.key] =
      typeof flagValue === "string"
        ? parsePort(flagValue, service.flag)
        : envValue
          ? parsePort(envValue, service.env)
          : service.fallback;
  }
  const ports = services.map((s) => options[s.key]);
  if (new Set(ports).size !== ports.length) {
    throw new UsageError(`the three ports must differ, got ${ports.join(", ")}`);
  }
  return options;
}
