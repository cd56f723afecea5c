import { adapter } from "./adapter.js";
import { bench } from "./bench.js";
import { command } from "./command.js";
import type { CliCommand } from "./command-type.js";
import { doctor } from "./doctor.js";
import { grafana } from "./grafana.js";
import { launch } from "./launch.js";
import { haproxy, nginx } from "./load-balancer.js";
import { plan } from "./plan.js";
import { prometheus } from "./prometheus.js";
import { reload } from "./reload.js";
import { stack } from "./stack.js";
import { status } from "./status.js";
import { stop } from "./stop.js";

/** Every command, in the order the main help lists them. The dispatcher and the help read only this. */
export const COMMANDS: readonly CliCommand[] = [
  command,
  launch,
  plan,
  reload,
  stop,
  adapter,
  status,
  bench,
  doctor,
  haproxy,
  nginx,
  prometheus,
  grafana,
  stack,
];

export function findCommand(name: string): CliCommand | undefined {
  return COMMANDS.find((entry) => entry.name === name);
}
