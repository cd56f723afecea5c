import { StudioValidationError } from "../errors.js";
import type { StudioLogger } from "../logger.js";
import type { FetchFunction, RequestOptions } from "../options.js";
import { describeValue } from "./describe.js";
import type { CallSettings } from "./execute.js";
import { assertRetries, assertSignal, assertTimeout, isPlainObject } from "./validate.js";

// What a client holds once its options are checked, and how a call's own options are merged into it.

export interface Transport {
  readonly fetch: FetchFunction;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly secrets: readonly string[];
  readonly logger: StudioLogger | undefined;
  readonly authorization: string | undefined;
}

/** The global fetch, looked up at call time so that it is never detached from `globalThis` (browsers care). */
export const globalFetch: FetchFunction = (request) => globalThis.fetch(request);

/** Checks a call's options and merges them with the client's. */
export function callSettings(
  transport: Transport,
  method: string,
  path: string,
  options: RequestOptions | undefined,
): CallSettings {
  const given = checkRequestOptions(options);
  return {
    method,
    path,
    timeoutMs: given.timeoutMs ?? transport.timeoutMs,
    maxRetries: given.maxRetries ?? transport.maxRetries,
    signal: given.signal,
    fetch: transport.fetch,
    secrets: transport.secrets,
    logger: transport.logger,
    authorization: transport.authorization,
  };
}

export function checkRequestOptions(options: unknown, field = "options"): RequestOptions {
  if (options === undefined) return {};
  if (!isPlainObject(options))
    throw new StudioValidationError(field, "must be an object", describeValue(options));
  assertSignal(`${field}.signal`, options.signal);
  assertTimeout(`${field}.timeoutMs`, options.timeoutMs);
  assertRetries(`${field}.maxRetries`, options.maxRetries);
  return options as RequestOptions;
}
