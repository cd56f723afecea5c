// Generated from openapi/chat-completions.yaml by packages/types/scripts/generate.mjs: do not edit.
// Run `pnpm generate` to regenerate.

export interface paths {
    "/v1/chat/completions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a chat completion
         * @description Sends the conversation in `messages` to the model named in `model` and returns the reply at
         *     `choices[0].message.content`.
         *
         *     With `stream: true` the answer is `text/event-stream` instead: one `data: <chunk JSON>` event per
         *     piece of the reply (see **ChatCompletionChunk**), an optional usage chunk, then `data: [DONE]`. An
         *     error after the stream began arrives as a `data: {"error": ...}` event (see
         *     **ChatCompletionStreamError**) followed by `data: [DONE]`: the status is already 200, so a client
         *     must read every event. Errors found before generation starts (bad request, unknown model) answer
         *     with their status and a JSON body, as without streaming.
         */
        post: operations["createChatCompletion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the served models
         * @description Lists the names clients may send in `model`: the served model name, and one entry per LoRA adapter
         *     (whose `parent` is the base model).
         */
        get: operations["listModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/load_lora_adapter": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Load a LoRA adapter
         * @description Loads the adapter at `lora_path` under the name `lora_name`, so that requests may send that name in
         *     `model` (and `GET /v1/models` lists it). With `load_inplace: true` an adapter already loaded under
         *     that name gets the new weights.
         *
         *     The route exists only when the server was started with `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`
         *     (and `--enable-lora`); without it the answer is 404 `{"detail": "Not Found"}`. vLLM warns that this
         *     is for trusted networks: anyone who can reach the route can make the server read any path it can.
         */
        post: operations["loadLoraAdapter"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/unload_lora_adapter": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Unload a LoRA adapter
         * @description Unloads the adapter named `lora_name`; requests that name it then answer 404. Like loading, the
         *     route exists only with `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`.
         */
        post: operations["unloadLoraAdapter"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Check readiness
         * @description Answers 200 with an empty body once the engine runs. Before that the server refuses connections
         *     (weights still loading); a 5XX answer means the engine has failed. Never requires a key.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the Prometheus metrics
         * @description vLLM's engine metrics in the Prometheus text exposition format (served by `prometheus_client`, so the
         *     content type carries its format version, e.g. `text/plain; version=0.0.4; charset=utf-8`): requests
         *     running and waiting, KV-cache usage, token counters, and latency histograms (time to first token,
         *     end-to-end), each sample labelled with the `model_name`. Counters only grow while the server runs, so
         *     rates come from two reads an interval apart. The page grows with the number of engines (one series each).
         *     Never requires a key.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ChatContentPartText: {
            /** @constant */
            type: "text";
            text: string;
        };
        ChatContentPartImage: {
            /** @constant */
            type: "image_url";
            image_url: {
                /** @description An `http(s)` URL of the image, or the image itself as a `data:` URL. */
                url: string;
                /**
                 * @description Accepted for OpenAI compatibility.
                 * @enum {string}
                 */
                detail?: "auto" | "low" | "high";
            };
        };
        ChatContentPartInputAudio: {
            /** @constant */
            type: "input_audio";
            input_audio: {
                /** @description The audio, base64-encoded. */
                data: string;
                /** @enum {string} */
                format: "wav" | "mp3";
            };
        };
        /** @description vLLM extra. Audio by URL. */
        ChatContentPartAudioUrl: {
            /** @constant */
            type: "audio_url";
            audio_url: {
                url: string;
            };
        };
        /** @description vLLM extra. Video by URL. */
        ChatContentPartVideoUrl: {
            /** @constant */
            type: "video_url";
            video_url: {
                url: string;
            };
        };
        /**
         * @description One part of a user message. Images, audio and video need a multimodal model; vLLM fetches `http(s)`
         *     URLs itself (within `--allowed-media-domains` when set) and also takes `data:` URLs.
         */
        ChatContentPart: components["schemas"]["ChatContentPartText"] | components["schemas"]["ChatContentPartImage"] | components["schemas"]["ChatContentPartInputAudio"] | components["schemas"]["ChatContentPartAudioUrl"] | components["schemas"]["ChatContentPartVideoUrl"];
        /**
         * @description A message's content: a string, or content parts. OpenAI allows only text parts outside user messages;
         *     vLLM accepts any part there too (and logs a warning for a system message with media).
         */
        ChatMessageContent: string | components["schemas"]["ChatContentPart"][];
        /** @description Instructions for the model. */
        ChatSystemMessage: {
            /** @constant */
            role: "system";
            content: components["schemas"]["ChatMessageContent"];
            /** @description A name for the author, to tell participants of the same role apart. */
            name?: string;
        };
        /** @description Instructions for the model (OpenAI's newer name for system messages). */
        ChatDeveloperMessage: {
            /** @constant */
            role: "developer";
            content: components["schemas"]["ChatMessageContent"];
            /** @description A name for the author. */
            name?: string;
        };
        /** @description What the user says, as text or as content parts (text, images, audio, video). */
        ChatUserMessage: {
            /** @constant */
            role: "user";
            content: components["schemas"]["ChatMessageContent"];
            /** @description A name for the author. */
            name?: string;
        };
        /** @description A refusal the model gave in an earlier turn. */
        ChatContentPartRefusal: {
            /** @constant */
            type: "refusal";
            refusal: string;
        };
        ChatFunctionCall: {
            name: string;
            /** @description The arguments as a JSON string, as the model wrote them; parse and check them before use. */
            arguments: string;
        };
        /** @description One call of a function by the model. */
        ChatToolCall: {
            /** @description The call's id; a `tool` message answers it with the same `tool_call_id`. */
            id: string;
            /** @constant */
            type: "function";
            function: components["schemas"]["ChatFunctionCall"];
        };
        /**
         * @description An earlier reply of the model. `content` is null (or absent) when the turn only called tools; send the
         *     `tool_calls` back as they came, followed by one `tool` message per call.
         */
        ChatAssistantMessage: {
            /** @constant */
            role: "assistant";
            content?: string | (components["schemas"]["ChatContentPartText"] | components["schemas"]["ChatContentPartRefusal"])[] | null;
            /** @description A name for the author. */
            name?: string;
            refusal?: string | null;
            tool_calls?: components["schemas"]["ChatToolCall"][] | null;
            /**
             * @deprecated
             * @description The older single function call; use `tool_calls`.
             */
            function_call?: components["schemas"]["ChatFunctionCall"] | null;
            /** @description vLLM extra. The reasoning of that turn, for templates that show it again. */
            reasoning?: string | null;
            /**
             * @deprecated
             * @description The older name of `reasoning`; vLLM reads it as `reasoning`.
             */
            reasoning_content?: string | null;
        };
        /** @description The result of one tool call, answering the call with id `tool_call_id`. */
        ChatToolMessage: {
            /** @constant */
            role: "tool";
            content: components["schemas"]["ChatMessageContent"];
            /** @description The `id` of the tool call this answers. */
            tool_call_id: string;
        };
        /**
         * @deprecated
         * @description The result of a function call in OpenAI's older function-calling form; use `tool` messages.
         */
        ChatFunctionMessage: {
            /** @constant */
            role: "function";
            content: string | null;
            /** @description The name of the function that was called. */
            name: string;
        };
        /**
         * @description One message of the conversation; `role` tells which kind. vLLM renders the conversation with the
         *     model's chat template, so what a role means to the model is the template's business. vLLM also hands
         *     messages of other roles to the template; this contract lists the six roles OpenAI clients send and
         *     refuses others, so that a typo in `role` is caught before the request is sent.
         */
        ChatMessage: components["schemas"]["ChatSystemMessage"] | components["schemas"]["ChatDeveloperMessage"] | components["schemas"]["ChatUserMessage"] | components["schemas"]["ChatAssistantMessage"] | components["schemas"]["ChatToolMessage"] | components["schemas"]["ChatFunctionMessage"];
        /**
         * @description The shape of the reply: `text` (the default), `json_object` (any JSON object), `json_schema` (JSON
         *     that satisfies `json_schema.schema`), or vLLM's `structural_tag`.
         */
        ChatResponseFormat: null | {
            /** @enum {string} */
            type: "text" | "json_object";
        } | {
            /** @constant */
            type: "json_schema";
            json_schema: {
                /** @description A name for the schema. */
                name: string;
                description?: string | null;
                /** @description The JSON Schema the reply must satisfy. */
                schema?: {
                    [key: string]: unknown;
                } | null;
                strict?: boolean | null;
            };
        } | {
            /** @constant */
            type: "structural_tag";
            /** @description The structural tag format (xgrammar's structural tag). */
            format?: unknown;
            /** @description Older form. Each structure has `begin`, `schema` and `end`. */
            structures?: {
                begin: string;
                schema?: {
                    [key: string]: unknown;
                } | null;
                end: string;
            }[];
            triggers?: string[];
        };
        /** @description Options of a stream; only allowed with `stream: true` (vLLM answers 400 otherwise). */
        ChatStreamOptions: {
            /**
             * @description Send one more chunk before `data: [DONE]` whose `choices` is empty and whose `usage` counts the
             *     tokens of the whole request.
             */
            include_usage?: boolean | null;
            /** @description vLLM extra. With `include_usage`, also put the running `usage` on every chunk. */
            continuous_usage_stats?: boolean | null;
        } | null;
        ChatFunctionDefinition: {
            /** @description The function's name, as the model will call it. */
            name: string;
            /** @description What the function does, for the model. */
            description?: string | null;
            /** @description The function's arguments, as a JSON Schema object. */
            parameters?: {
                [key: string]: unknown;
            } | null;
            /** @description Ask for arguments that satisfy `parameters` exactly. */
            strict?: boolean | null;
        };
        /** @description A function the model may call. */
        ChatTool: {
            /**
             * @description Always `function` (the default).
             * @constant
             */
            type?: "function";
            function: components["schemas"]["ChatFunctionDefinition"];
        };
        /**
         * @description Whether and which tool the model calls: `none` (the default without `tools`), `auto` (the default
         *     with them), `required`, or one named function. A named function or `required` works without
         *     `--enable-auto-tool-choice`: vLLM constrains the output to the function's parameters.
         */
        ChatToolChoice: ("none" | "auto" | "required") | {
            /** @constant */
            type?: "function";
            function: {
                name: string;
            };
        } | null;
        /**
         * @description vLLM extra: constrain the reply. Give one of `json`, `regex`, `choice`, `grammar`, `json_object` or
         *     `structural_tag` (more than one of `json`, `regex` and `choice` answers 400). Cannot be combined with a
         *     named `tool_choice`. `response_format` is the OpenAI way to ask for JSON and maps onto this.
         */
        ChatStructuredOutputs: {
            /** @description A JSON Schema (as an object or a JSON string) the reply must satisfy. */
            json?: {
                [key: string]: unknown;
            } | string | null;
            /** @description A regular expression the reply must match. */
            regex?: string | null;
            /** @description The reply is exactly one of these strings. */
            choice?: string[] | null;
            /** @description A context-free grammar (EBNF) the reply must follow. */
            grammar?: string | null;
            /** @description The reply is any JSON object. */
            json_object?: boolean | null;
            /** @description A structural-tag specification, as a JSON string. */
            structural_tag?: string | null;
            /** @description Fail instead of falling back to another structured-output backend. */
            disable_fallback?: boolean;
            /** @description Forbid free whitespace in JSON output. */
            disable_any_whitespace?: boolean;
            /** @description Treat JSON schemas as if they forbade additional properties. */
            disable_additional_properties?: boolean;
            /** @description The whitespace JSON output may contain, as a regular expression. */
            whitespace_pattern?: string | null;
        } | null;
        /**
         * @description The body of `POST /v1/chat/completions`: every field of OpenAI's chat-completion request that vLLM
         *     accepts, then vLLM's own sampling and template extras. Only `messages` is required: vLLM fills the
         *     rest with defaults (the server's `--generation-config` defaults, then OpenAI's). Limits below are the
         *     ones vLLM checks; a field outside them answers 400. Fields newer servers add pass through unchecked
         *     (vLLM logs and ignores fields it does not know).
         */
        ChatCompletionRequest: {
            /** @description The conversation so far, oldest first. */
            messages: components["schemas"]["ChatMessage"][];
            /**
             * @description The served model name (`--served-model-name`, or the model path) for a full model, or the adapter
             *     name for LoRA; `GET /v1/models` lists both. vLLM uses its first served model when omitted.
             */
            model?: string | null;
            /** @description Penalises tokens by how often they already appeared in the output. Default 0. */
            frequency_penalty?: number | null;
            /** @description Token id (as a string) to a bias added to its logit before sampling. */
            logit_bias?: {
                [key: string]: number;
            } | null;
            /** @description Return the log probability of each output token in `choices[].logprobs`. Default false. */
            logprobs?: boolean | null;
            /**
             * @description How many most likely tokens to return at each position, with `logprobs: true`; `-1` returns the
             *     whole vocabulary. The server caps it at `--max-logprobs` (20 by default). Default 0.
             */
            top_logprobs?: number | null;
            /**
             * @deprecated
             * @description Most tokens to generate. Optional: without it (and without `max_completion_tokens`) the reply may
             *     use the rest of the model's context. Deprecated by OpenAI in favour of `max_completion_tokens`;
             *     vLLM accepts both, and `max_completion_tokens` wins when both are given.
             */
            max_tokens?: number | null;
            /** @description Most tokens to generate (the current OpenAI name of `max_tokens`). */
            max_completion_tokens?: number | null;
            /** @description How many choices to generate for the conversation. Default 1. */
            n?: number | null;
            /** @description Penalises tokens that already appeared in the output at all. Default 0. */
            presence_penalty?: number | null;
            response_format?: components["schemas"]["ChatResponseFormat"];
            /** @description Seed for sampling, for reproducible replies (a 64-bit signed integer). */
            seed?: number | null;
            /**
             * @description Up to the server's `VLLM_MAX_STOP_STRINGS` strings that end generation; the stop string itself is
             *     left out of the reply unless `include_stop_str_in_output`.
             */
            stop?: string | string[] | null;
            /**
             * @description Answer with server-sent events (`text/event-stream`) of `chat.completion.chunk` objects, ended by
             *     `data: [DONE]`, instead of one JSON completion. Default false.
             */
            stream?: boolean | null;
            stream_options?: components["schemas"]["ChatStreamOptions"];
            /** @description Sampling temperature; 0 is greedy. Default 1 (or the model's generation config). */
            temperature?: number | null;
            /** @description Nucleus sampling; keeps the smallest set of tokens whose probability reaches `top_p`. Default 1. */
            top_p?: number | null;
            /**
             * @description Functions the model may call. Tool calls are parsed from the output only when the server runs with
             *     `--enable-auto-tool-choice` and a `--tool-call-parser` (for `tool_choice: auto`); an empty array
             *     answers 400.
             */
            tools?: components["schemas"]["ChatTool"][] | null;
            tool_choice?: components["schemas"]["ChatToolChoice"];
            /** @description Whether the model may call several tools in one turn. Default true. */
            parallel_tool_calls?: boolean | null;
            /**
             * @description How much a reasoning model should think; passed to the chat template.
             * @enum {string|null}
             */
            reasoning_effort?: "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max" | null;
            /** @description Return the model's reasoning in `reasoning` (with a `--reasoning-parser`). Default true. */
            include_reasoning?: boolean;
            /** @description Most tokens a reasoning model may spend thinking before it must answer. */
            thinking_token_budget?: number | null;
            /** @description An end-user id. Accepted for OpenAI compatibility; vLLM ignores it. */
            user?: string | null;
            /** @description vLLM extra. Beam search with `n` beams instead of sampling. Default false. */
            use_beam_search?: boolean;
            /** @description vLLM extra. Sample among the `top_k` most likely tokens; 0 or -1 considers all. Default 0. */
            top_k?: number | null;
            /** @description vLLM extra. Drop tokens less likely than `min_p` times the most likely one. Default 0. */
            min_p?: number | null;
            /** @description vLLM extra. Above 1 discourages repeating prompt and output tokens, below 1 encourages it. Default 1. */
            repetition_penalty?: number | null;
            /** @description vLLM extra. Length penalty of beam search. Default 1. */
            length_penalty?: number;
            /** @description vLLM extra. Token ids that end generation (and stay out of the reply unless they are special tokens). */
            stop_token_ids?: number[] | null;
            /** @description vLLM extra. Keep the stop string at the end of the reply. Default false. */
            include_stop_str_in_output?: boolean;
            /** @description vLLM extra. Keep generating after the end-of-sequence token (for benchmarks). Default false. */
            ignore_eos?: boolean;
            /** @description vLLM extra. Fewest tokens to generate before end-of-sequence or stop ids may end the reply. Default 0. */
            min_tokens?: number;
            /** @description vLLM extra. Leave special tokens out of the reply text. Default true. */
            skip_special_tokens?: boolean;
            /** @description vLLM extra. Put spaces between special tokens in the reply text. Default true. */
            spaces_between_special_tokens?: boolean;
            /** @description vLLM extra. Keep only this many prompt tokens (-1 keeps what the model's context allows). */
            truncate_prompt_tokens?: number | null;
            /**
             * @description vLLM extra. With `truncate_prompt_tokens`, `left` keeps the last tokens and `right` the first.
             * @enum {string|null}
             */
            truncation_side?: "left" | "right" | null;
            /**
             * @description vLLM extra. Return this many log probabilities per prompt token in `prompt_logprobs` (-1: the whole
             *     vocabulary). Not available with `stream: true`.
             */
            prompt_logprobs?: number | null;
            /** @description vLLM extra. Token ids to return log probabilities for at every position (needs `logprobs: true`). */
            logprob_token_ids?: number[] | null;
            /** @description vLLM extra. Only these token ids may be generated. */
            allowed_token_ids?: number[] | null;
            /** @description vLLM extra. Words that must not be generated. */
            bad_words?: string[];
            /** @description vLLM extra. Prefix the reply with the last message when it has the same role. Default false. */
            echo?: boolean;
            /** @description vLLM extra. Add the chat template's generation prompt. Default true. */
            add_generation_prompt?: boolean;
            /**
             * @description vLLM extra. Continue the final (assistant) message instead of starting a new one, to prefill the
             *     reply. Cannot be combined with `add_generation_prompt: true`. Default false.
             */
            continue_final_message?: boolean;
            /** @description vLLM extra. Add special tokens (BOS...) on top of what the chat template adds. Default false. */
            add_special_tokens?: boolean;
            /** @description vLLM extra. Documents for retrieval-augmented templates, each with `title` and `text`. */
            documents?: {
                [key: string]: string;
            }[] | null;
            /** @description vLLM extra. A Jinja chat template to use instead of the model's. */
            chat_template?: string | null;
            /** @description vLLM extra. Extra variables for the chat template, for example `{"enable_thinking": false}`. */
            chat_template_kwargs?: {
                [key: string]: unknown;
            } | null;
            /** @description vLLM extra. Extra arguments to the multimodal processor (refused unless the server trusts them). */
            mm_processor_kwargs?: {
                [key: string]: unknown;
            } | null;
            /** @description vLLM extra. Extra arguments to the media loaders, by modality (refused unless the server trusts them). */
            media_io_kwargs?: {
                [key: string]: unknown;
            } | null;
            structured_outputs?: components["schemas"]["ChatStructuredOutputs"];
            /** @description vLLM extra. Lower is served earlier; anything but 0 needs `--scheduling-policy priority`. Default 0. */
            priority?: number;
            /** @description vLLM extra. The id used in the server's logs and in the answer's `id`; random when omitted. */
            request_id?: string;
            /** @description vLLM extra. A stable id shared by the requests of one conversation. */
            session_id?: string | null;
            /** @description vLLM extra. With `logprobs`, name tokens as `token_id:<id>`. */
            return_tokens_as_token_ids?: boolean | null;
            /** @description vLLM extra. Add `prompt_token_ids` and each choice's `token_ids` to the answer. */
            return_token_ids?: boolean | null;
            /** @description vLLM extra. Add `prompt_text`, the prompt the chat template produced, to the answer. */
            return_prompt_text?: boolean | null;
            /**
             * @description vLLM extra. Salts the prefix cache so other users cannot probe prompts by timing: at most 128
             *     characters, none of `@`, `/`, `\` or NUL.
             */
            cache_salt?: string | null;
            /** @description vLLM extra. Parameters for disaggregated prefill and decode. */
            kv_transfer_params?: {
                [key: string]: unknown;
            } | null;
            /** @description vLLM extra. Parameters for disaggregated encoder caching. */
            ec_transfer_params?: {
                [key: string]: unknown;
            } | null;
            /** @description vLLM extra. Strings, numbers or lists of them for custom server extensions. */
            vllm_xargs?: {
                [key: string]: unknown;
            } | null;
            /** @description vLLM extra. Tokens per streamed chunk, raised to at least the server's `--stream-interval`. */
            stream_interval?: number | null;
        };
        /** @description The model's reply. */
        ChatCompletionMessage: {
            /**
             * @description Always `assistant`.
             * @example assistant
             */
            role: string;
            /** @description The reply text; null when the model produced none (for example only tool calls). */
            content: string | null;
            /** @description Always null from vLLM. */
            refusal?: string | null;
            /** @description Always null from vLLM. */
            annotations?: unknown[] | {
                [key: string]: unknown;
            } | null;
            /** @description Always null from vLLM. */
            audio?: {
                [key: string]: unknown;
            } | null;
            /** @deprecated */
            function_call?: components["schemas"]["ChatFunctionCall"] | null;
            /**
             * @description The functions the model called (with a tool parser on the server). Newer servers leave the field
             *     out when there are none; older ones send `[]`.
             */
            tool_calls?: components["schemas"]["ChatToolCall"][];
            /** @description vLLM extra. The model's reasoning, split from the reply by the server's `--reasoning-parser`. */
            reasoning?: string | null;
            /**
             * @deprecated
             * @description The name of `reasoning` on older vLLM servers (and beside it on some).
             */
            reasoning_content?: string | null;
        };
        ChatCompletionTokenLogprob: {
            token: string;
            /** @description The log probability; -9999 stands for minus infinity. */
            logprob: number;
            /** @description The token's UTF-8 bytes. */
            bytes?: number[] | null;
            /** @description The `top_logprobs` most likely tokens at this position. */
            top_logprobs?: {
                token: string;
                logprob: number;
                bytes?: number[] | null;
            }[];
        };
        /** @description Log probabilities of the output tokens, with `logprobs: true`; null without. */
        ChatCompletionLogprobs: {
            content?: components["schemas"]["ChatCompletionTokenLogprob"][] | null;
        } | null;
        /**
         * @description Why generation stopped: `stop` (end of sequence or a stop string), `length` (`max_tokens` or the
         *     context), `tool_calls` (the model called tools), `abort`, or `error`. Null in a stream until the
         *     choice's last chunk. Newer servers may add reasons.
         * @example stop
         * @example length
         * @example tool_calls
         */
        ChatFinishReason: string | null;
        ChatCompletionChoice: {
            index: number;
            message: components["schemas"]["ChatCompletionMessage"];
            logprobs?: components["schemas"]["ChatCompletionLogprobs"];
            finish_reason: components["schemas"]["ChatFinishReason"];
            /**
             * @description vLLM extra. What stopped generation: the stop string or stop token id that matched, or null when
             *     the model's end-of-sequence token (or the length limit) did.
             */
            stop_reason?: number | string | null;
            /** @description vLLM extra. The generated token ids, with `return_token_ids`. */
            token_ids?: number[] | null;
            /** @description vLLM extra. A mixture-of-experts model's routing decisions (base64 `.npy`), when the server records them. */
            routed_experts?: string | null;
        };
        /** @description Token counts of the request. */
        ChatCompletionUsage: {
            prompt_tokens: number;
            completion_tokens?: number | null;
            total_tokens: number;
            /** @description With `--enable-prompt-tokens-details`, how many prompt tokens came from the prefix cache. */
            prompt_tokens_details?: {
                cached_tokens?: number | null;
            } | null;
        };
        /**
         * @description vLLM extra. The log probabilities at one prompt position, keyed by token id (as a string). Null for
         *     the first prompt token, which has no context.
         */
        ChatPromptTokenLogprobs: {
            [key: string]: {
                logprob: number;
                /** @description The token's rank in the distribution (1 is the most likely). */
                rank?: number | null;
                decoded_token?: string | null;
            };
        } | null;
        /**
         * @description vLLM extra. Timings of the request, when the server reports them; null otherwise (and for `n` above 1).
         *     Experimental in vLLM.
         */
        ChatRequestMetrics: {
            time_to_first_token_ms?: number | null;
            generation_time_ms?: number | null;
            queue_time_ms?: number | null;
            /** @description Mean time between output tokens. */
            mean_itl_ms?: number | null;
            tokens_per_second?: number | null;
            /** @description Acceptance figures of speculative decoding, when it runs. */
            speculative_decoding?: {
                mean_acceptance_length?: number;
                draft_acceptance_rate?: number;
                acceptance_histogram?: number[];
                num_spec_steps?: number;
                num_accepted_draft_tokens?: number;
                num_draft_tokens?: number;
                num_spec_tokens?: number;
                per_step_accepted?: number[] | null;
                per_step_drafted?: number[] | null;
            } | null;
        } | null;
        /**
         * @description A chat completion, as vLLM answers `stream: false`. The reply text is at `choices[0].message.content`.
         *     vLLM writes every field it knows, null when unset.
         */
        ChatCompletion: {
            /** @description `chatcmpl-` and the request id. */
            id: string;
            /** @constant */
            object: "chat.completion";
            /** @description Unix time in seconds. */
            created: number;
            /** @description The model or adapter name the request asked for. */
            model: string;
            choices: components["schemas"]["ChatCompletionChoice"][];
            usage: components["schemas"]["ChatCompletionUsage"];
            /** @description Always null from vLLM (OpenAI's processing tier). */
            service_tier?: string | null;
            system_fingerprint?: string | null;
            /** @description vLLM extra. With `prompt_logprobs`, one entry per prompt token (null for the first). */
            prompt_logprobs?: components["schemas"]["ChatPromptTokenLogprobs"][] | null;
            /** @description vLLM extra. The prompt's token ids, with `return_token_ids`. */
            prompt_token_ids?: number[] | null;
            /** @description vLLM extra. Parameters for disaggregated prefill and decode. */
            kv_transfer_params?: {
                [key: string]: unknown;
            } | null;
            /** @description vLLM extra. Parameters for disaggregated encoder caching. */
            ec_transfer_params?: {
                [key: string]: unknown;
            } | null;
            /** @description vLLM extra. The prompt the chat template produced, with `return_prompt_text`. */
            prompt_text?: string | null;
            metrics?: components["schemas"]["ChatRequestMetrics"];
        };
        /**
         * @description A piece of a tool call. The first piece of call `index` carries its `id`, `type` and `function.name`;
         *     later pieces carry more of `function.arguments`, to append.
         */
        ChatToolCallDelta: {
            /** @description Which call of the message this piece belongs to. */
            index: number;
            id?: string | null;
            /** @enum {string|null} */
            type?: "function" | null;
            function?: {
                name?: string | null;
                /** @description The next piece of the arguments' JSON text. */
                arguments?: string | null;
            } | null;
        };
        /** @description What a chunk adds to its choice's message. Concatenate the strings in order. */
        ChatCompletionDelta: {
            /** @description `assistant`, on the choice's first chunk. */
            role?: string | null;
            /** @description The next piece of the reply text (the first chunk carries an empty string). */
            content?: string | null;
            /** @description vLLM extra. The next piece of the reasoning. */
            reasoning?: string | null;
            /**
             * @deprecated
             * @description The name of `reasoning` on older vLLM servers.
             */
            reasoning_content?: string | null;
            /** @description Pieces of tool calls, absent when the chunk has none. */
            tool_calls?: components["schemas"]["ChatToolCallDelta"][];
        };
        ChatCompletionChunkChoice: {
            index: number;
            delta: components["schemas"]["ChatCompletionDelta"];
            logprobs?: components["schemas"]["ChatCompletionLogprobs"];
            finish_reason?: components["schemas"]["ChatFinishReason"];
            /** @description vLLM extra. As in a completion's choice, on the choice's last chunk. */
            stop_reason?: number | string | null;
            /** @description vLLM extra. The token ids of this delta, with `return_token_ids`. */
            token_ids?: number[] | null;
        };
        /**
         * @description One event of a stream (`stream: true`): a `data: ` line of server-sent events holding this object as
         *     JSON. Every chunk of a stream has the same `id`, `created` and `model`. The first chunk of each choice
         *     carries `delta.role`; later ones carry pieces of `content`, `reasoning` or `tool_calls`; the last one
         *     of a choice has a `finish_reason`. With `stream_options.include_usage`, a final chunk has an empty
         *     `choices` and the `usage` of the whole request. The stream then ends with `data: [DONE]`.
         */
        ChatCompletionChunk: {
            id: string;
            /** @constant */
            object: "chat.completion.chunk";
            /** @description Unix time in seconds. */
            created: number;
            model: string;
            /** @description The choices this chunk advances; empty in the usage chunk. */
            choices: components["schemas"]["ChatCompletionChunkChoice"][];
            /**
             * @description The token counts: on the final usage chunk with `stream_options.include_usage`, and on every chunk
             *     with `continuous_usage_stats` as well.
             */
            usage?: components["schemas"]["ChatCompletionUsage"] | null;
            system_fingerprint?: string | null;
            /** @description vLLM extra. On the first chunk with `return_token_ids`. */
            prompt_token_ids?: number[] | null;
            /** @description vLLM extra. On the first chunk with `return_prompt_text`. */
            prompt_text?: string | null;
            metrics?: components["schemas"]["ChatRequestMetrics"];
        };
        /**
         * @description An error after the stream began. The HTTP status is already 200, so vLLM sends the error as an event
         *     (`data: {"error": {...}}`) and then `data: [DONE]`. A client must treat it as a failure of the request,
         *     not as the end of the reply.
         */
        ChatCompletionStreamError: {
            error: {
                message: string;
                /**
                 * @example BadRequestError
                 * @example InternalServerError
                 */
                type?: string;
                param?: string | null;
                /** @description The HTTP status the error would have had. */
                code?: number;
                /** @description `error`, on older servers. */
                object?: string;
            };
        };
        /**
         * @description What one `data:` line of a stream holds: a chunk, or an error that ends the stream. The last line is
         *     `data: [DONE]`, which is not JSON. Lines are separated by a blank line, as server-sent events are.
         */
        ChatCompletionStreamEvent: components["schemas"]["ChatCompletionChunk"] | components["schemas"]["ChatCompletionStreamError"];
        /**
         * @description vLLM's error answer. Current servers send `{"error": {"message", "type", "param", "code"}}`; older
         *     ones sent the same fields at the top level with `object: "error"`; a refused API key answers
         *     `{"error": "Unauthorized"}`, and a route the server does not have `{"detail": "Not Found"}`. So every
         *     field is optional.
         */
        ChatErrorBody: {
            /** @description FastAPI's answer for a route this server does not have. */
            detail?: unknown;
            /** @description The error object, or a bare message (`Unauthorized`). */
            error?: {
                message?: string;
                /** @description For example `BadRequestError`, `NotFoundError`, `InvalidUserInput`. */
                type?: string;
                /** @description The request field at fault, when known. */
                param?: string | null;
                /** @description The HTTP status. */
                code?: number;
            } | string;
            /** @constant */
            object?: "error";
            message?: string;
            type?: string;
            param?: string | null;
            code?: number;
        };
        /** @description A name the server accepts in `model`. */
        Model: {
            /** @description The name to send in `model`. */
            id: string;
            /** @constant */
            object: "model";
            created?: number;
            owned_by?: string;
            /** @description The model path or repository the name serves. */
            root?: string | null;
            /** @description For a LoRA adapter, the base model it runs on; null for a base model. */
            parent?: string | null;
            /** @description The context length of a base model; null for an adapter. */
            max_model_len?: number | null;
            /** @description OpenAI's legacy permission objects; vLLM sends one with fixed values. */
            permission?: {
                [key: string]: unknown;
            }[];
        };
        ModelList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["Model"][];
        };
        /** @description Loads a LoRA adapter so that requests may name it in `model`. */
        LoadLoraAdapterRequest: {
            /** @description The name requests will send in `model`. An empty name answers 400. */
            lora_name: string;
            /** @description The adapter's directory on the server's machine (or a name a LoRA resolver knows). */
            lora_path: string;
            /** @description Replace the weights of an adapter already loaded under `lora_name` (400 otherwise). Default false. */
            load_inplace?: boolean;
        };
        /** @description Unloads a LoRA adapter; requests naming it then answer 404. */
        UnloadLoraAdapterRequest: {
            /** @description The adapter's name. An empty name answers 400. */
            lora_name: string;
            /** @description The engine's id of the adapter; ignored by current servers. */
            lora_int_id?: number | null;
        };
    };
    responses: {
        /** @description The request breaks a rule of the server, for example max_tokens beyond the model's context. */
        ChatBadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "message": "This model's maximum context length is 4096 tokens.",
                 *         "type": "BadRequestError",
                 *         "param": null,
                 *         "code": 400
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ChatErrorBody"];
            };
        };
        /**
         * @description The server was started with an API key (`--api-key` or `VLLM_API_KEY`) and the request did not send it
         *     as `Authorization: Bearer <key>`. vLLM answers with a bare message in `error`.
         */
        ChatUnauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": "Unauthorized"
                 *     }
                 */
                "application/json": components["schemas"]["ChatErrorBody"];
            };
        };
        /** @description No served model or adapter has the name sent in model. */
        ChatModelNotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "message": "The model `support-lora` does not exist.",
                 *         "type": "NotFoundError",
                 *         "param": null,
                 *         "code": 404
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ChatErrorBody"];
            };
        };
        /** @description The engine failed. */
        ChatServerError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "message": "The engine has stopped.",
                 *         "type": "InternalServerError",
                 *         "param": null,
                 *         "code": 500
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ChatErrorBody"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    createChatCompletion: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChatCompletionRequest"];
            };
        };
        responses: {
            /**
             * @description The completion (`application/json`), or with `stream: true` its stream (`text/event-stream`).
             *     The reply text is at `choices[0].message.content`, or the concatenation of the chunks'
             *     `choices[0].delta.content`.
             */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatCompletion"];
                    "text/event-stream": components["schemas"]["ChatCompletionStreamEvent"];
                };
            };
            400: components["responses"]["ChatBadRequest"];
            401: components["responses"]["ChatUnauthorized"];
            404: components["responses"]["ChatModelNotFound"];
            "5XX": components["responses"]["ChatServerError"];
        };
    };
    listModels: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The served models and adapters. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelList"];
                };
            };
            401: components["responses"]["ChatUnauthorized"];
        };
    };
    loadLoraAdapter: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LoadLoraAdapterRequest"];
            };
        };
        responses: {
            /** @description Loaded. The body is a plain sentence (vLLM sends it without a `Content-Type`), not JSON. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /**
             * @description `lora_name` or `lora_path` missing or empty, or an adapter of that name is already loaded and
             *     `load_inplace` is not true.
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatErrorBody"];
                };
            };
            401: components["responses"]["ChatUnauthorized"];
            /**
             * @description No adapter at `lora_path`; or, with the body `{"detail": "Not Found"}`, runtime LoRA updating is
             *     not enabled on this server.
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatErrorBody"];
                };
            };
            "5XX": components["responses"]["ChatServerError"];
        };
    };
    unloadLoraAdapter: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UnloadLoraAdapterRequest"];
            };
        };
        responses: {
            /** @description Unloaded. The body is a plain sentence (sent without a `Content-Type`), not JSON. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description `lora_name` missing or empty. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatErrorBody"];
                };
            };
            401: components["responses"]["ChatUnauthorized"];
            /**
             * @description No adapter of that name is loaded; or, with the body `{"detail": "Not Found"}`, runtime LoRA
             *     updating is not enabled on this server.
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatErrorBody"];
                };
            };
            "5XX": components["responses"]["ChatServerError"];
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The server is ready. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description No health route: the server at this address is not a vLLM server (or a proxy in front of it does
             *     not forward `/health`).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The engine is not healthy. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metrics page, one sample per line after its `# HELP` and `# TYPE` lines. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /**
             * @description No metrics route: the server at this address is not a vLLM server (or a proxy in front of it does
             *     not forward `/metrics`).
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
