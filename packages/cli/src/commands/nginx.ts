import { nginxConfig } from "@finetune-studio/serve-kit";
import { ExitCode } from "../exit-codes.js";
import { type CliIo, UsageError } from "../io.js";
import { numberOrRaw, parseCommandLine } from "../serve-args.js";
import type { CliCommand } from "./command-type.js";

const NGINX_OPTIONS = {
  upstream: { type: "string", multiple: true },
  listen: { type: "string" },
  host: { type: "string" },
  "read-timeout": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** `studio-serve nginx`: prints the load-balancer config for several vLLM instances. */
function runNginx(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parseCommandLine("nginx", args, NGINX_OPTIONS);
  if (values.help === true) {
    io.out(HELP);
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

const HELP = `studio-serve nginx: print an nginx config that balances requests over several vLLM instances.

Usage:
  studio-serve nginx --upstream host:port [--upstream host:port ...] --listen P [options]

Options:
  --upstream host:port      a vLLM instance ([addr]:port for IPv6); repeat for each
  --listen P                the port nginx listens on
  --host H                  the address nginx listens on (default 127.0.0.1)
  --read-timeout S          seconds to wait between reads from an instance (default 600)

The config goes in nginx's http block, e.g. /etc/nginx/conf.d/studio-serve.conf. It sends each request
to the instance with the fewest open ones and passes streamed responses on unbuffered.

Example:
  studio-serve nginx --upstream 127.0.0.1:8001 --upstream 127.0.0.1:8002 --listen 8000
`;

export const nginx: CliCommand = {
  name: "nginx",
  synopsis: [["nginx --upstream host:port ... --listen P", "print a load-balancer config"]],
  help: HELP,
  run: runNginx,
};
