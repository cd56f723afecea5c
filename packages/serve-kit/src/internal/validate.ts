import { describeSecret, describeValue, isHostname, isIpAddress } from "@finetune-studio/internal";
import { ServeConfigError } from "../errors.js";
import { MAX_LORA_RANKS, maxLoraRankFor } from "../max-lora-rank.js";
import { hasControlCharacter, hasWhitespace } from "./text.js";

// Each check takes the raw value (callers may be plain JavaScript) and the field's name, and either returns
// the value typed or throws a ServeConfigError naming the field, the rule and what was given.

/** Throws the ServeConfigError for `field`: the rule broken and what was given. */
export function refuse(field: string, rule: string, value: unknown): never {
  throw new ServeConfigError(field, rule, describeValue(value));
}

/** `check(value)` when the option was given, undefined when it was not. */
export function optional<T>(
  value: unknown,
  check: (value: unknown, field: string) => T,
  field: string,
): T | undefined {
  return value === undefined ? undefined : check(value, field);
}

export function checkString(value: unknown, field: string): string {
  if (typeof value !== "string") refuse(field, "must be a string", value);
  return value;
}

/** A model or adapter reference (local path or hub repository) that goes into argv as a value. */
export function checkReference(value: unknown, field: string): string {
  const text = checkString(value, field);
  if (text.trim() === "") refuse(field, "must not be empty", value);
  if (text.startsWith("-")) {
    refuse(
      field,
      "must not start with '-', which vLLM would read as an option (write ./-name for a path)",
      value,
    );
  }
  if (hasControlCharacter(text))
    refuse(
      field,
      "must not hold NUL, newlines or other control characters (C0, DEL, C1 or bidirectional)",
      value,
    );
  return text;
}

export function checkPort(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 65535) {
    refuse(field, "must be an integer from 1 to 65535", value);
  }
  return value;
}

export function checkHost(value: unknown, field: string): string {
  const host = checkString(value, field);
  if (host.startsWith("[") && host.endsWith("]")) {
    refuse(field, "must be an IPv6 address without brackets", value);
  }
  if (!isIpAddress(host) && !isHostname(host)) {
    refuse(field, "must be an IPv4 address, an IPv6 address or a host name", value);
  }
  return host;
}

export function checkServedName(value: unknown, field: string): string {
  const name = checkString(value, field);
  if (name === "") refuse(field, "must not be empty", value);
  if (hasWhitespace(name) || hasControlCharacter(name)) refuse(field, "must not hold whitespace", value);
  if (name.startsWith("-"))
    refuse(field, "must not start with '-', which vLLM would read as an option", value);
  return name;
}

// `=` and `,` would change how vLLM splits a `name=path` value; a leading `-` would make it an option.
const ADAPTER_NAME = /^[A-Za-z0-9._-]+$/;

export function checkAdapterName(value: unknown, field: string): string {
  const name = checkString(value, field);
  if (!ADAPTER_NAME.test(name)) refuse(field, "must match [A-Za-z0-9._-]+", value);
  if (name.startsWith("-"))
    refuse(field, "must not start with '-', which vLLM would read as an option", value);
  return name;
}

export function checkMaxLoraRank(value: unknown, field: string): number {
  if (typeof value === "number" && (MAX_LORA_RANKS as readonly number[]).includes(value)) return value;
  const allowed = `must be one of ${MAX_LORA_RANKS.join(", ")}`;
  if (typeof value === "number" && value >= 1) {
    const next = maxLoraRankFor(value);
    if (next === undefined) refuse(field, `${allowed}; no allowed value is that large`, value);
    refuse(field, `${allowed}; use ${next}, the next allowed value up`, value);
  }
  return refuse(field, allowed, value);
}

/** A check that a value is one of `allowed` (a closed list of words, such as vLLM's dtypes). */
export function oneOf<T extends string | number>(allowed: readonly T[]) {
  return (value: unknown, field: string): T => {
    if (!(allowed as readonly unknown[]).includes(value))
      refuse(field, `must be one of ${allowed.join(", ")}`, value);
    return value as T;
  };
}

/** A switch's value: true or false, nothing else. */
export function checkSwitch(value: unknown, field: string): boolean {
  if (typeof value !== "boolean") refuse(field, "must be true or false", value);
  return value;
}

export function checkPositiveInteger(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    refuse(field, "must be an integer of at least 1", value);
  }
  return value;
}

/** An API key: it becomes an HTTP header value, so no whitespace or control characters. Never echoed. */
export function checkApiKey(value: unknown, field: string): string {
  const rule =
    "must be a non-empty string of Latin-1 characters (it travels in an HTTP header) without whitespace or control characters";
  if (
    typeof value !== "string" ||
    value === "" ||
    hasWhitespace(value) ||
    hasControlCharacter(value) ||
    [...value].some((char) => (char.codePointAt(0) ?? 0) > 0xff)
  ) {
    throw new ServeConfigError(field, rule, describeSecret(value));
  }
  return value;
}

export function checkObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    refuse(field, "must be an object", value);
  return value as Record<string, unknown>;
}

/** Refuses keys the options type does not have, so a misspelt option is not silently ignored. */
export function checkKnownKeys(
  object: Record<string, unknown>,
  known: readonly string[],
  what: string,
): void {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) {
      refuse(key, `is not an option of ${what}; known options: ${known.join(", ")}`, object[key]);
    }
  }
}
