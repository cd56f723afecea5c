import { readAtMost } from "@finetune-studio/internal";

// Reading from a server we do not trust: every read has a deadline and a size cap, redirects are not
// followed (an answer from elsewhere is not the instance's), and a failure is classified for the user.

export interface BoundedAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** Why a read got no answer: the instance refuses connections, is too slow, or something else. */
export class ReadProblem extends Error {
  override readonly name = "ReadProblem";
  constructor(
    readonly kind: "refused" | "timeout" | "too-large" | "network",
    message: string,
  ) {
    super(message);
  }
}

/**
 * GETs `url` within `timeoutMs` (and before `signal`, a deadline the caller shares across several reads),
 * reading at most `maxBytes` of its body; never follows a redirect.
 */
export async function boundedGet(
  url: string,
  options: {
    timeoutMs: number;
    maxBytes: number;
    headers?: Record<string, string>;
    fetch?: typeof fetch;
    signal?: AbortSignal;
  },
): Promise<BoundedAnswer> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
  try {
    const response = await (options.fetch ?? fetch)(url, {
      redirect: "manual",
      signal,
      ...(options.headers ? { headers: options.headers } : {}),
    });
    const bytes = await readCapped(response, options.maxBytes);
    return {
      status: response.status,
      contentType: response.headers.get("content-type") ?? "",
      text: new TextDecoder().decode(bytes),
    };
  } catch (error) {
    throw classify(error, options);
  }
}

/** The whole body, or a ReadProblem once it passes `maxBytes` (the rest is not read). */
export async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new ReadProblem("too-large", `the answer is larger than ${maxBytes} bytes`);
  }
  const bytes = response.body === null ? new Uint8Array() : await readAtMost(response.body, maxBytes);
  if (bytes === undefined) throw new ReadProblem("too-large", `the answer is larger than ${maxBytes} bytes`);
  return bytes;
}

function classify(error: unknown, options: { timeoutMs: number }): ReadProblem {
  if (error instanceof ReadProblem) return error;
  const name = error instanceof Error ? error.name : "";
  if (name === "TimeoutError" || name === "AbortError") {
    return new ReadProblem("timeout", `no answer within ${options.timeoutMs / 1000} s`);
  }
  const code = causeCode(error);
  if (code === "ECONNREFUSED") return new ReadProblem("refused", "refusing connections");
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
    return new ReadProblem("timeout", `no answer within ${options.timeoutMs / 1000} s`);
  }
  const cause = (error as { cause?: unknown } | null)?.cause;
  const detail =
    code ?? (cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error));
  return new ReadProblem("network", `could not read it (${detail})`);
}

function causeCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
