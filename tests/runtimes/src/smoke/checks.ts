/** The checks smoke.mjs reports, in the order it runs them: the table's columns. */
export const smokeChecks = [
  "import",
  "require",
  "studio.getProjectTree",
  "studio.getRecommendations",
  "studio.updateTrace",
  "chat.complete",
  "validation error",
  "retried 503",
  "chat.stream",
  // Not a check of its own: the run printed its last line and exited 0.
  "clean exit",
] as const;

export type SmokeCheck = (typeof smokeChecks)[number];
export type CheckStatus = "pass" | "fail" | "skipped";

export interface CheckResult {
  readonly status: CheckStatus;
  readonly detail: string;
}

/** Reads the `SMOKE {...}` lines of a run; a check that printed nothing failed, with the run's output as why. */
export function parseSmokeOutput(output: string, exit: number | string): Map<SmokeCheck, CheckResult> {
  const reported = new Map<string, CheckResult>();
  for (const line of output.split("\n")) {
    if (!line.startsWith("SMOKE ")) continue;
    const { check, status, detail } = JSON.parse(line.slice("SMOKE ".length)) as CheckResult & {
      check: string;
    };
    reported.set(check, { status, detail });
  }
  const tail = output.split("\n").slice(-15).join("\n");
  const results = new Map<SmokeCheck, CheckResult>();
  for (const check of smokeChecks) {
    results.set(
      check,
      reported.get(check) ?? { status: "fail", detail: `no result (exit ${exit}); output ends:\n${tail}` },
    );
  }
  const finished = reported.has("done") && exit === 0;
  results.set("clean exit", {
    status: finished ? "pass" : "fail",
    detail: finished ? "" : `exit ${exit}; output ends:\n${tail}`,
  });
  return results;
}
