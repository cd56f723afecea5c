import { nginxConfig } from "../nginx-config.js";
import { ExitCode } from "./exit-codes.js";
import { NGINX_HELP } from "./help.js";
import { type CliIo, UsageError } from "./io.js";
import { numberOrRaw, parseCommandLine } from "./serve-args.js";

const NGINX_OPTIONS = {
  upstream: { type: "string", multiple: true },
  listen: { type: "string" },
  host: { type: "string" },
  "read-timeout": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** `studio-serve nginx`: prints the load-balancer config for several vLLM instances. */
export function runNginx(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parseCommandLine("nginx", args, NGINX_OPTIONS);
  if (values.help === true) {
    io.out(NGINX_HELP);
    return ExitCode.Ok;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, "nginx");
  const config = nginxConfig({
    upstreams: (values.upstream as string[] | undefined) ?? [],
    listen: numberOrRaw(values.listen) as number,
    ...(values.host === undefined ? {} : { host: values.host as string }),
    ...(values["read-timeout"] === undefined
      ? {}
      : { readTimeoutSeconds: numberOrRaw(values["read-timeout"]) as number }),
  });
  io.out(config);
  return ExitCode.Ok;
}
