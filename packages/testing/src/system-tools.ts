// Tests that drive a real system tool (Chromium, nginx, HAProxy, Prometheus, ps) find it here, or fail with one line
// that names the Debian package and the command that installs it. scripts/setup.sh installs them all.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

interface SystemTool {
  /** The Debian package that ships it. */
  readonly debianPackage: string;
  /** Names to look for on PATH (and in the sbin folders, where Debian puts servers). */
  readonly commands: readonly string[];
  /** An environment variable that points at the binary instead. */
  readonly env: string;
}

export const systemTools = {
  chromium: { debianPackage: "chromium", commands: ["chromium"], env: "CHROMIUM_PATH" },
  nginx: { debianPackage: "nginx", commands: ["nginx"], env: "NGINX_BIN" },
  haproxy: { debianPackage: "haproxy", commands: ["haproxy"], env: "HAPROXY_BIN" },
  prometheus: { debianPackage: "prometheus", commands: ["prometheus"], env: "PROMETHEUS_BIN" },
  promtool: { debianPackage: "prometheus", commands: ["promtool"], env: "PROMTOOL_BIN" },
  // Slim Debian images leave it out; a test lists processes with it to prove none was left behind.
  ps: { debianPackage: "procps", commands: ["ps"], env: "PS_BIN" },
} as const satisfies Record<string, SystemTool>;

export type SystemToolName = keyof typeof systemTools;

const SBIN = ["/usr/local/sbin", "/usr/sbin", "/sbin"];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The tool's path (its environment variable first, then PATH and the sbin folders), or undefined. */
export function findSystemTool(name: SystemToolName): string | undefined {
  const tool: SystemTool = systemTools[name];
  const override = process.env[tool.env];
  if (override) return override;
  const folders = [...(process.env.PATH ?? "").split(delimiter).filter(Boolean), ...SBIN];
  for (const command of tool.commands) {
    for (const folder of folders) {
      const candidate = join(folder, command);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/** The one line a test fails with when the tool is missing. */
export function missingToolMessage(name: SystemToolName): string {
  const tool: SystemTool = systemTools[name];
  const sudo = process.getuid?.() === 0 ? "" : "sudo ";
  return (
    `${name} is not installed: this test needs Debian's ${tool.debianPackage} package; ` +
    `install it with \`${sudo}apt-get install -y ${tool.debianPackage}\` (or run scripts/setup.sh), ` +
    `or set ${tool.env} to the binary`
  );
}

/** The tool's path; throws the one-line message above when it is missing (or ${env} points nowhere). */
export function requireSystemTool(name: SystemToolName): string {
  const found = findSystemTool(name);
  if (found !== undefined && isExecutable(found)) return found;
  const error = new Error(
    found === undefined ? missingToolMessage(name) : `${systemTools[name].env}=${found} is not an executable`,
  );
  // One line: the stack would only point at this helper.
  error.stack = `Error: ${error.message}`;
  throw error;
}
