import { createChatClient, StudioApiError } from "@finetune-studio/client";
import { errorText } from "../shared/messages.js";

// vLLM's runtime LoRA routes on one local instance, through the chat client (which bounds the answer, refuses
// redirects and keeps the key out of its errors); this turns its outcome into a line the CLI can report.

/** What an instance answered: ok, or the reason (vLLM's own message when it sent one, escaped later). */
export type LoraRouteResult = { ok: true; message: string } | { ok: false; status: number; message: string };

/** POST /v1/load_lora_adapter or /v1/unload_lora_adapter on the instance at `rootUrl`, once, with a timeout. */
export async function callLoraRoute(
  rootUrl: string,
  action: "load" | "unload",
  body: { lora_name: string; lora_path?: string },
  options: { apiKey?: string; timeoutMs: number },
): Promise<LoraRouteResult> {
  try {
    const chat = createChatClient({ baseUrl: rootUrl, apiKey: options.apiKey, timeoutMs: options.timeoutMs });
    const message =
      action === "load"
        ? await chat.loadLoraAdapter({ lora_name: body.lora_name, lora_path: body.lora_path ?? "" })
        : await chat.unloadLoraAdapter({ lora_name: body.lora_name });
    return { ok: true, message };
  } catch (error) {
    if (error instanceof StudioApiError) {
      return { ok: false, status: error.status, message: error.serverMessage ?? error.message };
    }
    return { ok: false, status: 0, message: errorText(error) };
  }
}
