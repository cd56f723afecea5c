import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { escapeForTerminal, type ProcessGroup, spawnGroup } from "@finetune-studio/internal";
import { nginxConfig } from "@finetune-studio/serve-kit";
import type { CliIo } from "../io.js";
import { LogLines } from "../log-lines.js";

/**
 * nginx in front of the relays, as a child of launch in its own process group: `-p DIR -c DIR/nginx.conf`
 * with `daemon off`, its pid, logs and temp files inside DIR. It is never reloaded: `nginx -s reload`
 * closes idle client keep-alive connections, and a request sent on one at that moment fails.
 */
export function startNginx(
  nginxPath: string,
  dir: string,
  listen: { host: string; port: number },
  sockets: readonly string[],
  io: CliIo,
): ProcessGroup {
  const site = nginxConfig({
    upstreams: sockets.map((socket) => `unix:${socket}`),
    listen: listen.port,
    host: listen.host,
  });
  mkdirSync(join(dir, "tmp"), { mode: 0o700 });
  const conf = join(dir, "nginx.conf");
  writeFileSync(
    conf,
    [
      "# Written by studio-serve launch for this run; removed when it stops.",
      // Run as root, nginx's workers would become nobody and could not reach the sockets in this 0700 dir.
      ...(process.getuid?.() === 0 ? ["user root;"] : []),
      "worker_processes 1;",
      `pid ${join(dir, "nginx.pid")};`,
      `error_log ${join(dir, "nginx-error.log")} warn;`,
      "events { worker_connections 1024; }",
      "http {",
      "    access_log off;",
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
        (kind) => `    ${kind}_temp_path ${join(dir, "tmp", kind)};`,
      ),
      ...site.split("\n").map((line) => (line === "" ? line : `    ${line}`)),
      "}",
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  const lines = new LogLines((line) => io.err(`[nginx] ${escapeForTerminal(line)}\n`));
  return spawnGroup(
    nginxPath,
    ["-p", dir, "-c", conf, "-e", join(dir, "nginx-error.log"), "-g", "daemon off;"],
    { env: io.env, onOutput: (_stream, chunk) => lines.push(chunk) },
  );
}
