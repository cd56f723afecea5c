// The rules a flag's value follows, each written once: whole numbers, seconds, decimals, ports, server URLs,
// environment-variable names. A broken rule is a UsageError naming the flag as the user typed it, the rule,
// and what was given (quoted, so a newline or an escape sequence in it shows as `\n`, never raw).
import { MAX_TIMER_MS } from "@finetune-studio/internal";
import { UsageError } from "./io.js";

/** What the user gave, for a message: JSON-quoted (control characters become `\n`, `\u001b`), long text cut. */
export function quoted(given: unknown): string {
  const text = typeof given === "string" ? given : String(given);
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

/** Refuses a value: `--flag: rule (given "value")`. */
export function refuse(flag: string, rule: string, given: unknown): never {
  throw new UsageError(`${flag}: ${rule} (given ${quoted(given)})`);
}

/** The one reading of a whole number the user typed: decimal digits only, from `min` to `max`. */
export function wholeNumber(text: unknown, flag: string, min: number, max: number, rule?: string): number {
  const number = typeof text === "string" && /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!(number >= min && number <= max))
    refuse(flag, rule ?? `must be a whole number from ${min} to ${max}`, text);
  return number;
}

/** A decimal above 0 (`1`, `0.5`), or `inf` when `allowInfinity`. */
export function positiveDecimal(text: unknown, flag: string, allowInfinity = false): number {
  if (allowInfinity && text === "inf") return Number.POSITIVE_INFINITY;
  const number = typeof text === "string" && /^\d{1,9}(\.\d{1,9})?$/.test(text) ? Number(text) : Number.NaN;
  if (!(number > 0)) refuse(flag, `must be a number above 0${allowInfinity ? ", or inf" : ""}`, text);
  return number;
}

/** The most seconds any duration option takes: what a timer (here and in the client) can wait. */
export const MAX_SECONDS = Math.floor(MAX_TIMER_MS / 1000);

/**
 * The one rule for every duration: whole seconds from `min` to `max` (at most MAX_SECONDS, about 24.8
 * days), so a value the CLI accepts is one the client's timers accept too.
 */
export function wholeSeconds(text: unknown, flag: string, min: number, max = MAX_SECONDS): number {
  return wholeNumber(text, flag, min, max, `must be a whole number of seconds from ${min} to ${max}`);
}

/** The port a running launch serves on (its front door), as `--port` and `--launch` name it. */
export function launchPort(text: unknown, flag: string): number {
  return wholeNumber(text, flag, 1, 65535, "must be the port the launch serves on, 1 to 65535");
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The name of an environment variable that holds a secret; the secret itself is never echoed. */
export function envName(text: string, flag: string): string {
  if (!ENV_NAME.test(text)) {
    throw new UsageError(
      `${flag}: must name an environment variable such as MY_VLLM_KEY, not hold the key (given a ${text.length}-character value)`,
    );
  }
  return text;
}

/**
 * A vLLM server's root URL, from `http://host:port` or `host:port`: http(s), no credentials, no path but the
 * `/v1` an OpenAI client's base URL ends in (the same server: vLLM's routes hang off the root).
 */
export function serverUrl(text: string, label: string): string {
  const refuseUrl = (rule: string): never => {
    // A user name or password in the URL is a secret: it is never echoed.
    throw new UsageError(`${label}: ${rule} (given ${quoted(text.replace(/\/\/[^/@]*@/, "//…@"))})`);
  };
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return refuseUrl("must be a server URL such as http://127.0.0.1:8000");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") refuseUrl("must be http:// or https://");
  if (url.username !== "" || url.password !== "") refuseUrl("must not hold a user name or password");
  const root = url.pathname === "/" || url.pathname === "/v1" || url.pathname === "/v1/";
  if (!root || url.search !== "" || url.hash !== "")
    refuseUrl("must be the server's root URL, or its /v1 base URL, without another path");
  return `${url.protocol}//${url.host}`;
}

/**
 * An instance to scrape, as `host:port`: any server URL `status` and `bench` take (`http://host:port`, its
 * `/v1` base URL, `host:port`), read by the same rule. Prometheus scrapes this config over http, so an
 * https URL is refused rather than scraped as http.
 */
export function scrapeTarget(text: string, label: string): string {
  const url = new URL(serverUrl(text, label));
  if (url.protocol === "https:")
    refuse(label, "must be an http:// instance: the config scrapes over http", text);
  if (!/:\d{1,5}(\/v1)?\/?$/.test(text)) {
    // No port: a URL is refused here; `host` as typed goes to the builder, whose rule asks for host:port.
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text))
      refuse(label, "must name the instance's port, e.g. http://127.0.0.1:8000", text);
    return text;
  }
  // The URL elides http's default port; Prometheus's target needs it written.
  return `${url.hostname}:${url.port || "80"}`;
}
