import { ENGINE_OPTIONS, haproxyConfig, nginxConfig } from "@finetune-studio/serve-kit";
import {
  DEFAULT_READ_TIMEOUT_SECONDS,
  MIN_FRONT_CONNECTIONS,
  vllmDefaultOf,
  vllmDefaultText,
} from "@finetune-studio/serve-kit/internal";
import { type CommandArgs, parseCommand, synopsisOf, usageLines } from "../shared/command-args.js";
import { DEFAULT_LISTEN } from "../shared/common-flags.js";
import { ExitCode } from "../shared/exit-codes.js";
import { describedAs, type Flag, flagHelp, listFlag, type ParsedFlags, textFlag } from "../shared/flags.js";
import type { CliIo } from "../shared/io.js";
import { numberOrRaw } from "../shared/raw-values.js";
import { ROUTING_FLAG, SESSION_HEADER_FLAG } from "../shared/routing-flags.js";
import { LAUNCH_DEFAULT_ROUTING } from "../supervise/layout.js";
import type { CliCommand } from "./command-type.js";

// `studio-serve nginx` and `studio-serve haproxy`: print a load balancer's configuration for vLLM instances
// a user runs (launch --instances writes HAProxy's own). The flags are parsed alike; the library checks them.

const UPSTREAM_FLAG = listFlag("upstream", {
  valueName: "host:port",
  help: "a vLLM instance ([addr]:port for IPv6); repeat for each",
  field: "upstreams",
});
const LISTEN_FLAG = textFlag("listen", {
  valueName: "P",
  help: "the port the balancer listens on",
  field: "listen",
});
const HOST_FLAG = textFlag("host", {
  valueName: "H",
  help: "the address it listens on",
  shows: DEFAULT_LISTEN.host,
  field: "host",
});
const READ_TIMEOUT_FLAG = textFlag("read-timeout", {
  valueName: "S",
  help: "seconds to wait between reads from an instance",
  shows: DEFAULT_READ_TIMEOUT_SECONDS,
  field: "readTimeoutSeconds",
});
const NUMBER_FIELDS = new Set([
  "listen",
  "readTimeoutSeconds",
  "maxNumSeqs",
  "maxConnections",
  "metricsPort",
]);

const NGINX_FLAGS = [UPSTREAM_FLAG, LISTEN_FLAG, HOST_FLAG, READ_TIMEOUT_FLAG];
const HAPROXY_FLAGS = [
  // HAProxy's builder calls its instances servers.
  { ...UPSTREAM_FLAG, field: "servers" },
  LISTEN_FLAG,
  HOST_FLAG,
  READ_TIMEOUT_FLAG,
  textFlag("max-num-seqs", {
    valueName: "N",
    help: `requests each instance runs at once, vLLM's --max-num-seqs\n(${vllmDefaultText(ENGINE_OPTIONS.maxNumSeqs.vllmDefault)}): HAProxy queues\nthe rest for the first free slot`,
    shows: vllmDefaultOf("maxNumSeqs"),
    field: "maxNumSeqs",
  }),
  textFlag("max-connections", {
    valueName: "N",
    help: "connections the front door holds; HAProxy needs two open files for each",
    shows: `4 x instances x --max-num-seqs, at least ${MIN_FRONT_CONNECTIONS}`,
    field: "maxConnections",
  }),
  textFlag("runtime-socket", {
    valueName: "PATH",
    help: "an admin runtime API socket (mode 0600), to drain instances at run time",
    field: "runtimeSocket",
  }),
  describedAs(ROUTING_FLAG, `${ROUTING_FLAG.help}, as launch`, LAUNCH_DEFAULT_ROUTING),
  SESSION_HEADER_FLAG,
  textFlag("metrics-port", {
    valueName: "P",
    help: "a loopback port where HAProxy's Prometheus exporter answers /metrics\n(launch uses its --port + instances + 1)",
    field: "metricsPort",
  }),
];

/** launch's routing unless told otherwise, so the same flags print the configuration launch writes. */
function haproxyOptions(options: Record<string, unknown>): Record<string, unknown> {
  return { routing: LAUNCH_DEFAULT_ROUTING, ...options };
}

/**
 * The builder's options from the flags given, each under the field its declaration names: the values go
 * raw (numbers as numbers) for the library to check by its own rules, which then name the flag.
 */
function builderOptions(flags: readonly Flag[], parsed: ParsedFlags): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const flag of flags) {
    if (flag.field === undefined) continue;
    const value = parsed.get(flag);
    if (flag.repeatable === true) options[flag.field] = value ?? [];
    else if (value !== undefined)
      options[flag.field] = NUMBER_FIELDS.has(flag.field) ? numberOrRaw(value) : value;
  }
  return options;
}

/**
 * A balancer's command line: the instances and the port, both always given (the builder's rules ask for
 * them, naming the flag), then its options.
 */
function balancerArgs(name: string, flags: readonly Flag[]): CommandArgs {
  const upstream = flags.find((flag) => flag.name === UPSTREAM_FLAG.name) as Flag;
  return { name, positionals: [], flags, requiredFlags: [upstream, LISTEN_FLAG], builderChecks: true };
}
const NGINX_ARGS = balancerArgs("nginx", NGINX_FLAGS);
const HAPROXY_ARGS = balancerArgs("haproxy", HAPROXY_FLAGS);

function balancerCommand(
  spec: CommandArgs,
  build: (options: Record<string, unknown>) => string,
  help: string,
): CliCommand["run"] {
  return (args: readonly string[], io: CliIo) => {
    const parsed = parseCommand(args, spec);
    if (parsed.help) {
      io.out(help);
      return ExitCode.Ok;
    }
    io.out(build(builderOptions(spec.flags, parsed)));
    return ExitCode.Ok;
  };
}

const NGINX_HELP = `studio-serve nginx: print an nginx config that balances requests over several vLLM instances.

${usageLines(NGINX_ARGS)}

Options:
${flagHelp(NGINX_FLAGS)}

The config goes in nginx's http block, e.g. /etc/nginx/conf.d/studio-serve.conf. It sends each request
to the instance with the fewest open ones and passes streamed responses on unbuffered.

Example:
  studio-serve nginx --upstream 127.0.0.1:8001 --upstream 127.0.0.1:8002 --listen 8000
`;

const HAPROXY_HELP = `studio-serve haproxy: print a whole HAProxy (2.6 or newer) configuration that balances requests
over several vLLM instances: the one launch --instances runs, for your own HAProxy. Given what
launch used (its instances' ports, --max-num-seqs, --max-connections, --routing, the metrics port,
the runtime socket), it prints the very file launch writes.

${usageLines(HAPROXY_ARGS)}

Options:
${flagHelp(HAPROXY_FLAGS)}

The least busy instance takes each request (with session or prefix routing, a request with a key
goes to its key's instance first); each instance runs at most --max-num-seqs, whatever the route;
connections to the instances stay open; a refused connection is tried again on another instance;
/health checks take a dead instance out; vLLM's control endpoints (/sleep, /wake_up, ...) get 403.

Example:
  studio-serve haproxy --upstream 127.0.0.1:8001 --upstream 127.0.0.1:8002 --listen 8000 > haproxy.cfg
`;

export const nginx: CliCommand = {
  name: "nginx",
  synopsis: [synopsisOf(NGINX_ARGS, "print an nginx load-balancer config")],
  help: NGINX_HELP,
  flags: NGINX_FLAGS,
  run: balancerCommand(NGINX_ARGS, (options) => nginxConfig(options as never), NGINX_HELP),
};

export const haproxy: CliCommand = {
  name: "haproxy",
  synopsis: [synopsisOf(HAPROXY_ARGS, "print an HAProxy load-balancer config")],
  help: HAPROXY_HELP,
  flags: HAPROXY_FLAGS,
  run: balancerCommand(
    HAPROXY_ARGS,
    (options) => haproxyConfig(haproxyOptions(options) as never),
    HAPROXY_HELP,
  ),
};
