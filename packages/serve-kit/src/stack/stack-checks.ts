import { hasControlCharacter, hasWhitespace } from "../internal/text.js";
import { checkKnownKeys, checkObject, checkString, oneOf, optional, refuse } from "../internal/validate.js";
import { CHART_LONGEST_SUFFIX } from "./chart.js";
import { checkDnsLabel, checkDnsSubdomain, checkQuantity, checkSecretKey } from "./kubernetes-names.js";
import type { SecretKeyReference, StackStorage } from "./stack-options.js";

// The rules of single stack options, which the option table (stack-option-table.ts) names for each entry.

/** The chart's Service names start with the release: Kubernetes wants them to start with a letter. */
export function checkReleaseName(value: unknown, field: string): string {
  const release = checkDnsLabel(value, field, 46);
  if (!/^[a-z]/.test(release)) {
    refuse(
      field,
      "must start with a letter: the chart's Service names begin with the release, and Kubernetes refuses a Service name that starts with a digit",
      value,
    );
  }
  return release;
}

/** The engine Service is `<release>-<name>-engine-service`, a DNS label: the name gets what the release leaves. */
export function modelNameBudget(release: string): number {
  return 63 - release.length - 1 - CHART_LONGEST_SUFFIX.length;
}

export function checkModelName(value: unknown, field: string, release: string): string {
  const name = checkDnsLabel(value, field);
  const budget = modelNameBudget(release);
  if (name.length > budget) {
    refuse(
      field,
      `must be at most ${budget} characters with release "${release}": the chart names the engine's Service <release>-<name>${CHART_LONGEST_SUFFIX}, at most 63`,
      value,
    );
  }
  return name;
}

/** `repository:tag`, as the chart joins them. A digest cannot be expressed that way. */
export function splitImage(value: unknown, field: string): { repository: string; tag: string } {
  const image = checkString(value, field);
  if (image === "" || image.startsWith("-") || hasWhitespace(image) || image.includes("@")) {
    refuse(
      field,
      "must be an image reference repository:tag such as vllm/vllm-openai:v0.11.0 (no digest: the chart joins repository and tag)",
      value,
    );
  }
  const colon = image.lastIndexOf(":");
  if (colon > image.lastIndexOf("/") && colon !== -1) {
    const tag = image.slice(colon + 1);
    if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(tag)) refuse(field, "must end in a valid tag", value);
    return { repository: image.slice(0, colon), tag };
  }
  return { repository: image, tag: "latest" };
}

export function checkSecretReference(value: unknown, field: string): SecretKeyReference {
  const reference = checkObject(value, field);
  checkKnownKeys(reference, ["name", "key"], `a Secret reference (${field})`);
  return {
    name: checkDnsSubdomain(reference.name, `${field}.name`),
    key: checkSecretKey(reference.key, `${field}.key`),
  };
}

/** `NAME[:KEY]` as typed: a Secret and the key in it, `defaultKey` when no key is named. */
export function secretReferenceFromText(defaultKey: string) {
  return (text: string, field: string): SecretKeyReference => {
    const [name = "", key = defaultKey, ...rest] = text.split(":");
    if (rest.length > 0 || name === "" || key === "") refuse(field, "must be NAME or NAME:KEY", text);
    return { name, key };
  };
}

export function checkRuntimeClassName(value: unknown, field: string): string {
  const name = checkString(value, field);
  return name === "" ? name : checkDnsSubdomain(name, field);
}

function checkAbsoluteDirectory(value: unknown, field: string): string {
  const path = checkString(value, field);
  if (!path.startsWith("/") || path.split("/").some((part) => part === "." || part === "..")) {
    refuse(field, "must be an absolute path without '.' or '..' segments", value);
  }
  if (/^\/+$/.test(path))
    refuse(field, "must be a directory below /: a volume cannot be mounted over the container's root", value);
  if (path.includes(":") || hasControlCharacter(path))
    refuse(field, "must not hold ':' or control characters", value);
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}

function checkPvcStorage(storage: Record<string, unknown>, replicas: number): StackStorage {
  checkKnownKeys(storage, ["kind", "size", "storageClass", "accessMode"], "storage of kind 'pvc'");
  const accessMode =
    optional(storage.accessMode, oneOf(["ReadWriteOnce", "ReadWriteMany"] as const), "storage.accessMode") ??
    (replicas > 1 ? "ReadWriteMany" : "ReadWriteOnce");
  const storageClass = optional(storage.storageClass, checkDnsSubdomain, "storage.storageClass");
  return {
    kind: "pvc",
    size: checkQuantity(storage.size, "storage.size"),
    accessMode,
    ...(storageClass === undefined ? {} : { storageClass }),
  };
}

/** Storage for `replicas` pods at most (more than one on a claim the chart makes must share it). */
export function checkStorage(value: unknown, replicas: number): StackStorage {
  const storage = checkObject(value, "storage");
  switch (storage.kind) {
    case "pvc":
      return checkPvcStorage(storage, replicas);
    case "claim":
      checkKnownKeys(storage, ["kind", "claimName", "mountPath"], "storage of kind 'claim'");
      return {
        kind: "claim",
        claimName: checkDnsSubdomain(storage.claimName, "storage.claimName"),
        mountPath: checkAbsoluteDirectory(storage.mountPath, "storage.mountPath"),
      };
    case "hostPath":
      checkKnownKeys(storage, ["kind", "path"], "storage of kind 'hostPath'");
      return { kind: "hostPath", path: checkAbsoluteDirectory(storage.path, "storage.path") };
    default:
      return refuse("storage.kind", "must be 'pvc', 'claim' or 'hostPath'", storage.kind);
  }
}

/** An http(s) URL without credentials: KEDA's Prometheus server address, written into a manifest. */
export function checkPrometheusUrl(value: unknown, field: string): string {
  const text = checkString(value, field);
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || !(url.protocol === "http:" || url.protocol === "https:") || hasWhitespace(text)) {
    refuse(field, "must be an http:// or https:// URL of a Prometheus server", value);
  }
  if (url.username !== "" || url.password !== "") {
    refuse(
      field,
      "must hold no user or password: give KEDA credentials with a TriggerAuthentication",
      "a URL with credentials",
    );
  }
  if (url.search !== "" || url.hash !== "") refuse(field, "must hold no query or fragment", value);
  return text.replace(/\/+$/, "");
}
