// TEMPORARY: vLLM's runtime LoRA routes, called with fetch until @finetune-studio/client ships
// loadLoraAdapter / unloadLoraAdapter (the chat contract documents both routes). Swap this one function
// for those calls; nothing else in the CLI calls the routes.

/** What an instance answered: ok, or the reason (vLLM's own message when it sent one, escaped later). */
export type LoraRouteResult = { ok: true; message: string } | { ok: false; status: number; message: string };

const MAX_ANSWER_CHARS = 4_000;

/**
 * POST /v1/load_lora_adapter or /v1/unload_lora_adapter on one local instance, with a timeout and no
 * redirects. vLLM answers a bare sentence on success and a JSON error (`error.message`) otherwise.
 */
export async function callLoraRouteUntilClientHasIt(
  rootUrl: string,
  action: "load" | "unload",
  body: { lora_name: string; lora_path?: string },
  options: { apiKey?: string; timeoutMs: number },
): Promise<LoraRouteResult> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
  try {
    const response = await fetch(`${rootUrl}/v1/${action}_lora_adapter`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      redirect: "manual",
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    const text = (await response.text()).slice(0, MAX_ANSWER_CHARS);
    if (response.ok) return { ok: true, message: text };
    return { ok: false, status: response.status, message: errorMessage(text) };
  } catch (error) {
    const reason =
      error instanceof Error ? (error.name === "TimeoutError" ? "timed out" : error.message) : "";
    return { ok: false, status: 0, message: reason || String(error) };
  }
}

function errorMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown }; message?: unknown; detail?: unknown };
    const message = parsed.error?.message ?? parsed.message ?? parsed.detail;
    if (typeof message === "string") return message;
  } catch {
    // Not JSON: show it as it came.
  }
  return text;
}
