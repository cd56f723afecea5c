import { execFileSync } from "node:child_process";

/** The mode a file written "shared" (0644) gets under the umask the CLI inherits from the tests. */
export function sharedFileMode(): number {
  const umask = Number.parseInt(execFileSync("sh", ["-c", "umask"], { encoding: "utf8" }).trim(), 8);
  return 0o644 & ~umask;
}
