import { haproxyConfig, nginxConfig } from "@finetune-studio/serve-kit";
import { ExitCode } from "../shared/exit-codes.js";
import {
  type Flag,
  flagHelp,
  listFlag,
  parseFlags,
  type RawValue,
  refuseExtraWords,
  textFlag,
} from "../shared/flags.js";
import type { CliIo } from "../shared/io.js";
import { numberOrRaw } from "../shared/raw-values.js";
import type { CliCommand } from "./command-type.js";

// `studio-serve nginx` and `studio-serve haproxy`: print a load balancer's configuration for vLLM instances
// a user runs (launch --instances writes HAProxy's own). The flags are parsed alike; the library checks them.

const COMMON_FLAGS = [
  listFlag("upstream", {
    valueName: "host:port",
    help: "a vLLM instance ([addr]:port for IPv6); repeat for each",
  }),
  textFlag("listen", { valueName: "P", help: "the port the balancer listens on" }),
  textFlag("host", { valueName: "H", help: "the address it listens on (default 127.0.0.1)" }),
  textFlag("read-timeout", {
    valueName: "S",
    help: "seconds to wait between reads from an instance (default 600)",
  }),
];

const HAPROXY_FLAGS = [
  textFlag("max-num-seqs", {
    valueName: "N",
    help: "requests each instance runs at once, vLLM's --max-num-seqs (default 1024):\nHAProxy queues the rest for the first free slot",
  }),
  textFlag("max-connections", {
    valueName: "N",
    help: "connections the front door holds (default 4 x instances x max-num-seqs,\nat least 4096); HAProxy needs two open files for each",
  }),
  textFlag("runtime-socket", {
    valueName: "PATH",
    help: "an admin runtime API socket (mode 0600), to drain instances at run time",
  }),
];

type Values = Record<string, RawValue>;

/** `{ [field]: value }` when the flag was given; numbers stay raw for the library's own rule. */
function given(field: string, value: RawValue, asNumber = false) {
  return value === undefined ? {} : { [field]: asNumber ? numberOrRaw(value) : value };
}

/** The flags both balancers take, as the library's options; values are passed on raw for it to check. */
function commonOptions(values: Values) {
  return {
    listen: numberOrRaw(values.listen) as number,
    ...given("host", values.host),
    ...given("readTimeoutSeconds", values["read-timeout"], true),
  };
}

function balancerCommand(
  flags: readonly Flag[],
  build: (upstreams: string[], values: Values) => string,
  help: string,
): CliCommand["run"] {
  return (args: readonly string[], io: CliIo) => {
    const parsed = parseFlags(args, flags);
    if (parsed.help) {
      io.out(help);
      return ExitCode.Ok;
    }
    refuseExtraWords(parsed.positionals);
    io.out(build((parsed.raw.upstream as string[] | undefined) ?? [], parsed.raw));
    return ExitCode.Ok;
  };
}

const COMMON_HELP = flagHelp(COMMON_FLAGS);

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
${flagHelp(HAPROXY_FLAGS)}

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
    COMMON_FLAGS,
    (upstreams, values) => nginxConfig({ upstreams, ...commonOptions(values) }),
    NGINX_HELP,
  ),
};

export const haproxy: CliCommand = {
  name: "haproxy",
  synopsis: [["haproxy --upstream host:port ... --listen P", "print an HAProxy load-balancer config"]],
  help: HAPROXY_HELP,
  run: balancerCommand(
    [...COMMON_FLAGS, ...HAPROXY_FLAGS],
    (servers, values) =>
      haproxyConfig({
        servers,
        ...commonOptions(values),
        ...given("maxNumSeqs", values["max-num-seqs"], true),
        ...given("maxConnections", values["max-connections"], true),
        ...given("runtimeSocket", values["runtime-socket"]),
      }),
    HAPROXY_HELP,
  ),
};
