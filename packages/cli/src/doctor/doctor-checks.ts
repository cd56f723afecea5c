// Turns what the doctor found (probes) into checks with a status and a fix. Pure, so every rule is tested.
import { escapeForTerminal } from "@finetune-studio/internal";

export interface GpuInfo {
  name: string;
  freeMiB: number;
  totalMiB: number;
}

export interface DoctorProbes {
  /** The first Python found, or undefined. */
  python: { command: string; version: string } | undefined;
  vllmPath: string | undefined;
  /** nvidia-smi's answer: the GPUs, or why there is none. */
  gpus: { gpus: GpuInfo[] } | { missing: true } | { error: string };
  /** Where a hub token was found (never the token). */
  hubLogin: string | undefined;
  port: { host: string; port: number; state: "free" | "in-use" | "unusable"; reason?: string };
}

export type CheckStatus = "pass" | "warn" | "fail";

export interface CheckResult {
  check: string;
  status: CheckStatus;
  detail: string;
  fix?: string;
}

export function evaluateDoctor(probes: DoctorProbes): CheckResult[] {
  return [
    checkPython(probes.python),
    checkVllm(probes.vllmPath),
    checkGpu(probes.gpus),
    checkHub(probes.hubLogin),
    checkPortState(probes.port),
  ];
}

function checkPython(python: DoctorProbes["python"]): CheckResult {
  const check = "python";
  const fix =
    "install Python 3.10 to 3.13 (what current vLLM releases support), e.g. with uv or your package manager";
  if (python === undefined) return { check, status: "fail", detail: "no python3 or python on PATH", fix };
  const match = /(\d+)\.(\d+)/.exec(python.version);
  const detail = `${python.version} (${python.command})`;
  if (!match) return { check, status: "fail", detail: `cannot read the version: ${detail}`, fix };
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (major < 3 || (major === 3 && minor < 8))
    return { check, status: "fail", detail: `${detail}: 3.8 or newer is needed`, fix };
  if (major === 3 && minor < 10) {
    return {
      check,
      status: "warn",
      detail: `${detail}: meets 3.8, but current vLLM releases need 3.10 or newer`,
      fix,
    };
  }
  return { check, status: "pass", detail };
}

function checkVllm(path: string | undefined): CheckResult {
  if (path !== undefined) return { check: "vllm", status: "pass", detail: path };
  return {
    check: "vllm",
    status: "fail",
    detail: "vllm is not on PATH",
    fix: "pip install vllm (in a Python 3.10+ environment), or serve with docker: studio-serve command ... --docker",
  };
}

function checkGpu(gpus: DoctorProbes["gpus"]): CheckResult {
  const check = "gpu";
  const fix =
    "a CUDA GPU with memory for the model is recommended: install the NVIDIA driver (nvidia-smi comes with it)";
  if ("missing" in gpus)
    return { check, status: "warn", detail: "nvidia-smi not found: no NVIDIA GPU or driver", fix };
  if ("error" in gpus) return { check, status: "warn", detail: `nvidia-smi failed: ${gpus.error}`, fix };
  if (gpus.gpus.length === 0) return { check, status: "warn", detail: "nvidia-smi lists no GPU", fix };
  const gib = (mib: number) => (mib / 1024).toFixed(1);
  const detail = gpus.gpus
    .map((gpu) => `${gpu.name}: ${gib(gpu.freeMiB)} GiB free of ${gib(gpu.totalMiB)} GiB`)
    .join("; ");
  return { check, status: "pass", detail };
}

function checkHub(login: string | undefined): CheckResult {
  if (login !== undefined) return { check: "hub login", status: "pass", detail: login };
  return {
    check: "hub login",
    status: "warn",
    detail: "no HF_TOKEN and no saved hub token: public repositories only",
    fix: "for private or gated repositories: export HF_TOKEN=<token>, or run `hf auth login`",
  };
}

function checkPortState(port: DoctorProbes["port"]): CheckResult {
  const where = `${port.host}:${port.port}`;
  if (port.state === "free") return { check: "port", status: "pass", detail: `${where} is free` };
  if (port.state === "in-use") {
    return {
      check: "port",
      status: "fail",
      detail: `${where} is in use`,
      fix: "stop what listens there, or choose another --port",
    };
  }
  return {
    check: "port",
    status: "fail",
    detail: `cannot listen on ${where} (${port.reason ?? "unknown reason"})`,
    fix: "use an address of this machine with --host",
  };
}

/** The checks as an aligned table, one row per check, with the fix under a failing or warning row. */
export function formatDoctorTable(results: readonly CheckResult[]): string {
  const width = Math.max(...results.map((result) => result.check.length), "check".length);
  const label: Record<CheckStatus, string> = { pass: "ok  ", warn: "warn", fail: "FAIL" };
  const rows = results.flatMap((result) => [
    // A detail quotes what a program printed (python --version, nvidia-smi): escaped like any child output.
    `${label[result.status]}  ${result.check.padEnd(width)}  ${escapeForTerminal(result.detail)}`,
    ...(result.fix === undefined ? [] : [`${" ".repeat(width + 8)}fix: ${escapeForTerminal(result.fix)}`]),
  ]);
  return `${rows.join("\n")}\n`;
}
