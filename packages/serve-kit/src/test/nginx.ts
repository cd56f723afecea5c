import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ManagedProcess, requireSystemTool, startProcess } from "@finetune-studio/testing";

// Every prefix a test file makes is removed when the file is done (cleanup.setup.ts): nothing is left in
// the temp folder.
const prefixes = new Set<string>();

/** Removes every prefix the file's tests made. */
export function removeNginxPrefixes(): void {
  for (const dir of prefixes) rmSync(dir, { recursive: true, force: true });
  prefixes.clear();
}

/** Debian's nginx (NGINX_BIN may point elsewhere); missing, the test fails with one line saying how to install it. */
export async function nginxBinary(): Promise<string> {
  return requireSystemTool("nginx");
}

export interface NginxPrefix {
  dir: string;
  conf: string;
  errorLog: string;
  accessLog: string;
}

/**
 * A throwaway nginx prefix: a main config with the pid file, logs and temp paths inside it, that includes
 * `siteConfig` (what nginxConfig generates) in its http block, as /etc/nginx/conf.d would.
 */
export function nginxPrefix(siteConfig: string): NginxPrefix {
  const dir = mkdtempSync(join(tmpdir(), "nginx-"));
  prefixes.add(dir);
  // Workers may run as another user when the tests run as root: they must reach the temp paths.
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, "tmp"));
  const site = join(dir, "studio-serve.conf");
  writeFileSync(site, siteConfig);
  const errorLog = join(dir, "error.log");
  const accessLog = join(dir, "access.log");
  const conf = join(dir, "nginx.conf");
  writeFileSync(
    conf,
    [
      "worker_processes 1;",
      `pid ${join(dir, "nginx.pid")};`,
      `error_log ${errorLog} warn;`,
      "events { worker_connections 128; }",
      "http {",
      "    log_format upstream '$upstream_addr $status';",
      `    access_log ${accessLog} upstream;`,
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
        (kind) => `    ${kind}_temp_path ${join(dir, "tmp", kind)};`,
      ),
      `    include ${site};`,
      "}",
      "",
    ].join("\n"),
  );
  return { dir, conf, errorLog, accessLog };
}

/** `nginx -t` on the prefix's config; throws with nginx's message when it is invalid. */
export function nginxTest(binary: string, prefix: NginxPrefix): void {
  execFileSync(binary, ["-t", "-q", "-p", prefix.dir, "-c", prefix.conf, "-e", prefix.errorLog], {
    stdio: "pipe",
  });
}

/** Starts nginx in the foreground on the prefix; `stop()` ends it. */
export function startNginx(binary: string, prefix: NginxPrefix): ManagedProcess {
  return startProcess(binary, [
    "-p",
    prefix.dir,
    "-c",
    prefix.conf,
    "-e",
    prefix.errorLog,
    "-g",
    "daemon off;",
  ]);
}
