// A stand-in for vLLM's OpenAI-compatible server that streams: Prism answers `text/event-stream` in one
// piece, so chat UIs, `chat.stream` and the official `openai` package need this to see tokens arrive.
// Every request body is checked against the contract's schema (and the cross-field rules vLLM adds), and
// every answer is built from the contract's examples.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatCompletionRequest, ModelList } from "@finetune-studio/types";
import { chatExample, chatSchema } from "./contract.js";
import { buildCompletion, buildStream, streamError } from "./replies.js";

export interface ChatMockOptions {
  /** Port to listen on (127.0.0.1 only); a free one by default. */
  port?: number;
  /** Pause before each chunk of a stream, to show tokens arriving; 0 by default. */
  tokenDelayMs?: number;
  /** When set, `/v1/*` asks for `Authorization: Bearer <apiKey>`, as `vllm serve --api-key` does. */
  apiKey?: string;
  /** Serve the runtime LoRA routes, as `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True` does; true by default. */
  runtimeLora?: boolean;
  /** Whether a LoRA path holds an adapter (vLLM answers 404 when not); every path does by default. */
  adapterExists?: (path: string) => boolean;
  /** Make every stream fail after this many content chunks with vLLM's in-stream error event. */
  failStreamAfterChunks?: number;
}

export interface ChatMock {
  readonly url: string;
  readonly port: number;
  /** The LoRA adapters loaded now: name to path. */
  readonly adapters: ReadonlyMap<string, string>;
  /** Every request body `POST /v1/chat/completions` accepted, in order. */
  readonly requests: readonly ChatCompletionRequest[];
  stop(): Promise<void>;
}

const maxBodyBytes = 1 << 20;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}`);
  }
}

/** vLLM's error answer: `{"error": {"message", "type", "param", "code"}}`. */
function vllmError(status: number, type: string, message: string, param: string | null = null): HttpError {
  return new HttpError(status, { error: { message, type, param, code: status } });
}

const notFound = () => new HttpError(404, { detail: "Not Found" });

async function readJson(request: IncomingMessage): Promise<unknown> {
  const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    throw vllmError(400, "BadRequestError", `Unsupported Media Type: Only 'application/json' is allowed`);
  }
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > maxBodyBytes)
      throw vllmError(413, "BadRequestError", `The body is over ${maxBodyBytes} bytes`);
    parts.push(part);
  }
  try {
    return JSON.parse(Buffer.concat(parts).toString("utf8"));
  } catch {
    throw vllmError(400, "BadRequestError", "The body is not valid JSON");
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

const checkRequest = chatSchema("ChatCompletionRequest");
const checkLoad = chatSchema("LoadLoraAdapterRequest");
const checkUnload = chatSchema("UnloadLoraAdapterRequest");

function checked<T>(check: ReturnType<typeof chatSchema>, body: unknown): T {
  if (!check(body)) {
    throw vllmError(
      400,
      "BadRequestError",
      `The request breaks the contract: ${check.problems.slice(0, 5).join("; ")}`,
    );
  }
  return body as T;
}

/** The rules vLLM's request validators add to the fields' own. */
function checkCrossFieldRules(request: ChatCompletionRequest): void {
  if (request.stream_options && !request.stream) {
    throw vllmError(
      400,
      "BadRequestError",
      "Stream options can only be defined when `stream=True`.",
      "stream_options",
    );
  }
  const top = request.top_logprobs;
  if (top !== undefined && top !== null && top !== 0 && !request.logprobs) {
    throw vllmError(
      400,
      "BadRequestError",
      "when using `top_logprobs`, `logprobs` must be set to true.",
      "top_logprobs",
    );
  }
  const choice = request.tool_choice;
  if (choice !== undefined && choice !== null && choice !== "none" && !request.tools) {
    throw vllmError(400, "BadRequestError", "When using `tool_choice`, `tools` must be set.", "tool_choice");
  }
  if (
    choice &&
    typeof choice === "object" &&
    !request.tools?.some((t) => t.function.name === choice.function.name)
  ) {
    throw vllmError(
      400,
      "BadRequestError",
      "The tool specified in `tool_choice` does not match any of the specified `tools`",
      "tool_choice",
    );
  }
}

export async function startChatMock(options: ChatMockOptions = {}): Promise<ChatMock> {
  const models = chatExample<ModelList>("ModelListLora");
  const baseModels = models.data.filter((model) => !model.parent);
  const adapters = new Map(models.data.filter((model) => model.parent).map((m) => [m.id, m.root ?? m.id]));
  const requests: ChatCompletionRequest[] = [];
  const delay = options.tokenDelayMs ?? 0;
  const adapterExists = options.adapterExists ?? (() => true);
  const open = new Set<ServerResponse>();

  // Adapters loaded at run time are listed as vLLM lists the ones it started with.
  const listModels = (): ModelList => ({
    object: "list",
    data: [
      ...baseModels,
      ...[...adapters].map(([id, root]) => ({
        id,
        object: "model" as const,
        created: baseModels[0]?.created ?? 0,
        owned_by: "vllm",
        root,
        parent: baseModels[0]?.id ?? null,
      })),
    ],
  });

  const modelFor = (request: ChatCompletionRequest): string => {
    const name = request.model ?? baseModels[0]?.id ?? "";
    if (!baseModels.some((model) => model.id === name) && !adapters.has(name)) {
      throw vllmError(404, "NotFoundError", `The model \`${name}\` does not exist.`, "model");
    }
    return name;
  };

  async function stream(response: ServerResponse, request: ChatCompletionRequest, model: string) {
    const context = {
      model,
      id: `chatcmpl-${randomUUID().replaceAll("-", "")}`,
      created: Math.floor(Date.now() / 1000),
    };
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
    });
    let contentChunks = 0;
    for (const chunk of buildStream(request, context)) {
      if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      if (response.destroyed) return; // the client went away: stop generating, as vLLM aborts the request
      response.write(`data: ${JSON.stringify(chunk)}\n\n`);
      if (chunk.choices[0]?.delta.content) contentChunks += 1;
      if (options.failStreamAfterChunks !== undefined && contentChunks >= options.failStreamAfterChunks) {
        response.write(`data: ${JSON.stringify(streamError())}\n\n`);
        break;
      }
    }
    response.end("data: [DONE]\n\n");
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
    const route = `${request.method} ${path}`;
    if (route === "GET /health") {
      response.writeHead(200).end();
      return;
    }
    if (options.apiKey !== undefined && path.startsWith("/v1/")) {
      if (request.headers.authorization !== `Bearer ${options.apiKey}`)
        throw new HttpError(401, { error: "Unauthorized" });
    }
    if (route === "GET /v1/models") return sendJson(response, 200, listModels());
    if (route === "POST /v1/chat/completions") {
      const body = checked<ChatCompletionRequest>(checkRequest, await readJson(request));
      checkCrossFieldRules(body);
      const model = modelFor(body);
      requests.push(body);
      if (body.stream) return stream(response, body, model);
      const context = {
        model,
        id: `chatcmpl-${randomUUID().replaceAll("-", "")}`,
        created: Math.floor(Date.now() / 1000),
      };
      return sendJson(response, 200, buildCompletion(body, context));
    }
    if (options.runtimeLora !== false && route === "POST /v1/load_lora_adapter") {
      const body = checked<{ lora_name: string; lora_path: string; load_inplace?: boolean }>(
        checkLoad,
        await readJson(request),
      );
      if (!body.lora_name || !body.lora_path) {
        throw vllmError(400, "InvalidUserInput", "Both 'lora_name' and 'lora_path' must be provided.");
      }
      if (!body.load_inplace && adapters.has(body.lora_name)) {
        throw vllmError(
          400,
          "InvalidUserInput",
          `The lora adapter '${body.lora_name}' has already been loaded. If you want to load the adapter in place, set 'load_inplace' to True.`,
        );
      }
      if (!adapterExists(body.lora_path)) {
        throw vllmError(
          404,
          "NotFoundError",
          `Loading lora ${body.lora_name} failed: No adapter found for ${body.lora_path}`,
        );
      }
      adapters.set(body.lora_name, body.lora_path);
      // vLLM answers a bare sentence with no Content-Type.
      response.writeHead(200).end(`Success: LoRA adapter '${body.lora_name}' added successfully.`);
      return;
    }
    if (options.runtimeLora !== false && route === "POST /v1/unload_lora_adapter") {
      const body = checked<{ lora_name: string }>(checkUnload, await readJson(request));
      if (!body.lora_name) {
        throw vllmError(
          400,
          "InvalidUserInput",
          "'lora_name' needs to be provided to unload a LoRA adapter.",
        );
      }
      if (!adapters.delete(body.lora_name)) {
        throw vllmError(404, "NotFoundError", `The lora adapter '${body.lora_name}' cannot be found.`);
      }
      response.writeHead(200).end(`Success: LoRA adapter '${body.lora_name}' removed successfully.`);
      return;
    }
    throw notFound();
  }

  const server = createServer((request, response) => {
    open.add(response);
    response.once("close", () => open.delete(response));
    route(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      if (error instanceof HttpError) return sendJson(response, error.status, error.body);
      const message = error instanceof Error ? error.message : String(error);
      sendJson(response, 500, { error: { message, type: "InternalServerError", param: null, code: 500 } });
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    adapters,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const response of open) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
