import { haproxyConfig, nginxConfig } from "@finetune-studio/serve-kit";
import { ExitCode } from "../shared/exit-codes.js";
import { type CliIo, UsageError } from "../shared/io.js";
import { numberOrRaw, parseCommandLine } from "../shared/serve-args.js";
import type { CliCommand } from "./command-type.js";

// `studio-serve nginx` and `studio-serve haproxy`: print a load balancer's configuration for vLLM instances
// a user runs (launch --instances writes HAProxy's own). The flags are parsed alike; the library checks them.

const COMMON_OPTIONS = {
  upstream: { type: "string", multiple: true },
  listen: { type: "string" },
  host: { type: "string" },
  "read-timeout": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type Values = Record<string, string | boolean | string[] | undefined>;

/** The flags both balancers take, as the library's options; values are passed on raw for it to check. */
function commonOptions(values: Values) {
  return {
    listen: numberOrRaw(values.listen) as number,
    ...(values.host === undefined ? {} : { host: values.host as string }),
    ...(values["read-timeout"] === undefined
      ? {}
      : { readTimeoutSeconds: numberOrRaw(values["read-timeout"]) as number }),
  };
}

function balancerCommand(
  name: string,
  extraOptions: Record<string, { type: "string" }>,
  build: (upstreams: string[], values: Values) => string,
  help: string,
): CliCommand["run"] {
  return (args: readonly string[], io: CliIo) => {
    const { values, positionals } = parseCommandLine(name, args, { ...COMMON_OPTIONS, ...extraOptions });
    if (values.help === true) {
      io.out(help);
      return ExitCode.Ok;
    }
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`, name);
    io.out(build((values.upstream as string[] | undefined) ?? [], values));
    return ExitCode.Ok;
  };
}

const COMMON_HELP = `  --upstream host:port      a vLLM instance ([addr]:port for IPv6); repeat for each
  --listen P                the port the balancer listens on
  --host H                  the address it listens on (default 127.0.0.1)
  --read-timeout S          seconds to wait between reads from an instance (default 600)`;

const NGINX_HELP = `studio-serve nginx: print an nginx config that balances requests over several vLLM instances.

Usage:
  studio-serve nginx --upstream host:port [--upstream host:port ...] --listen P [options]

Options:
${COMMON_HELP}

The config goes in nginx's http block, e.g. /etc/nginx/conf.d/studio-serve.conf. It sends each request
to the instance with the fewest open ones and passes streamed responses on unbuffered.

Example:
  studio-serve nginx --upstream 127.0.0.1:8001 --upstream 127.0.0.1:8002 --listen 8000
`;

const HAPROXY_HELP = `studio-serve haproxy: print a whole HAProxy (2.6 or newer) configuration that balances requests
over several vLLM instances: the one launch --instances runs, for your own HAProxy.

Usage:
  studio-serve haproxy --upstream host:port [--upstream host:port ...] --listen P [options]

Options:
${COMMON_HELP}
  --max-num-seqs N          requests each instance runs at once, vLLM's --max-num-seqs (default 1024):
                            HAProxy queues the rest for the first free slot
  --max-connections N       connections the front door holds (default 4 x instances x max-num-seqs,
                            at least 4096); HAProxy needs two open files for each
  --runtime-socket PATH     an admin runtime API socket (mode 0600), to drain instances at run time

The least busy instance takes each request; connections to the instances stay open; a refused
connection is tried again on another instance; /health checks take a dead instance out.

Example:
  studio-serve haproxy --upstream 127.0.0.1:8001 --upstream 127.0.0.1:8002 --listen 8000 > haproxy.cfg
`;

export const nginx: CliCommand = {
  name: "nginx",
  synopsis: [["nginx --upstream host:port ... --listen P", "print an nginx load-balancer config"]],
  help: NGINX_HELP,
  run: balancerCommand(
    "nginx",
    {},
    (upstreams, values) => nginxConfig({ upstreams, ...commonOptions(values) }),
    NGINX_HELP,
  ),
};

export const haproxy: CliCommand = {
  name: "haproxy",
  synopsis: [["haproxy --upstream host:port ... --listen P", "print an HAProxy load-balancer config"]],
  help: HAPROXY_HELP,
  run: balancerCommand(
    "haproxy",
    {
      "max-num-seqs": { type: "string" },
      "max-connections": { type: "string" },
      "runtime-socket": { type: "string" },
    },
    (servers, values) =>
      haproxyConfig({
        servers,
        ...commonOptions(values),
        ...(values["max-num-seqs"] === undefined
          ? {}
          : { maxNumSeqs: numberOrRaw(values["max-num-seqs"]) as number }),
        ...(values["max-connections"] === undefined
          ? {}
          : { maxConnections: numberOrRaw(values["max-connections"]) as number }),
        ...(values["runtime-socket"] === undefined
          ? {}
          : { runtimeSocket: values["runtime-socket"] as string }),
      }),
    HAPROXY_HELP,
  ),
};
