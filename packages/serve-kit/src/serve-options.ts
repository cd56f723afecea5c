import type { FullEngineOptions, LoraEngineOptions } from "./options/engine-options.js";

/** Options shared by both ways of serving. */
interface CommonServeOptions {
  /** Listen address. Default `127.0.0.1`: not reachable from other machines until you ask for it. */
  host?: string;
  /** Listen port, 1..65535. Default 8000, vLLM's own default. */
  port?: number;
  /**
   * The key clients must send as `Authorization: Bearer <key>`. It travels to vLLM as the `VLLM_API_KEY`
   * environment variable, never in argv (where `ps` shows it). It guards the `/v1` routes; `/health` stays open.
   */
  apiKey?: string;
  /**
   * More `vllm serve` options, appended after the ones the builder writes (for example
   * `["--max-model-len", "8192"]`). They may not set a flag the builder owns.
   */
  extraArgs?: readonly string[];
}

/**
 * A fully fine-tuned model: its checkpoint is the whole model. vLLM's engine options (`maxModelLen`,
 * `dtype` and the others) are declared in `options/engine-options.ts`.
 */
export interface FullServeOptions extends CommonServeOptions, FullEngineOptions {
  kind: "full";
  /** Local path or hub repository of the fine-tuned checkpoint. */
  model: string;
  /** The name clients send in `model`. Without it, clients send `model` itself. */
  servedModelName?: string;
}

export interface LoraAdapter {
  /** The name clients send in `model`: letters, digits, `.`, `_` and `-`. */
  name: string;
  /** Local path or hub repository of the adapter. */
  path: string;
}

/**
 * A base model plus one or more LoRA adapters. The engine options, `maxLoraRank` and `maxLoras` among them,
 * are declared in `options/engine-options.ts`.
 */
export interface LoraServeOptions extends CommonServeOptions, LoraEngineOptions {
  kind: "lora";
  /** Hub id or local path of the base model the adapters were trained on. */
  baseModel: string;
  adapters: readonly LoraAdapter[];
  /**
   * The name clients send in `model` for the base model without an adapter. Without it, they send
   * `baseModel` itself. It may not equal an adapter's name: a client asking for the adapter would get the base.
   */
  servedModelName?: string;
}

export type ServeOptions = FullServeOptions | LoraServeOptions;

/** What a client of the started server needs: the OpenAI-style base URL, the model name and a key. */
export interface ServeClientConfig {
  /** `http://<host>:<port>/v1`, the OpenAI-style base URL, with a loopback address when the server listens on a wildcard. */
  baseURL: string;
  /** `http://<host>:<port>`, the server's root (`/health`, `/metrics`, and `baseUrl` of the SDK's chat client). */
  rootURL: string;
  /** The served model name (full) or the first adapter's name (LoRA). */
  model: string;
  /** The API key, or the dummy `EMPTY` when the server needs none. */
  apiKey: string;
}

export interface ServeCommand {
  /** The command as an argument vector, to spawn without a shell. */
  argv: string[];
  /** Environment variables the command needs on top of the caller's (the API key, when given). */
  env: Record<string, string>;
  /** POSIX shell text that parses back to exactly `argv`. */
  shell: string;
  client: ServeClientConfig;
  /** The address vLLM listens on, as given (after defaults): what a port check or a health probe needs. */
  listen: ListenAddress;
  /** Things that work but are probably not what you want, such as listening on all interfaces without a key. */
  warnings: string[];
}

/** Where a server listens. */
export interface ListenAddress {
  /** An IPv4 or IPv6 address (without brackets) or a host name. */
  host: string;
  /** 1..65535. */
  port: number;
}
