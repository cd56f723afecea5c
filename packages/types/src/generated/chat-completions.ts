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
         *     `choices[0].message.content`. Other OpenAI chat-completion fields (`top_p`, `stop`, `seed`, ...) pass
         *     through to the server unchanged.
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
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description One message of the conversation. */
        ChatMessage: {
            /**
             * @description Who speaks, for example `system`, `user` or `assistant`.
             * @example system
             * @example user
             * @example assistant
             */
            role: string;
            content: string;
        };
        /** @description What a client sends. Fields beyond these pass through to the server. */
        ChatCompletionRequest: {
            /** @description The served model name (full model) or the adapter name (LoRA). */
            model: string;
            messages: components["schemas"]["ChatMessage"][];
            /** @description Maximum number of tokens to generate. */
            max_tokens: number;
            /** @description Sampling temperature; optional. */
            temperature?: number;
        } & {
            [key: string]: unknown;
        };
        /** @description The model's reply. */
        ChatCompletionMessage: {
            /** @example assistant */
            role: string;
            /** @description The reply text; null when the model produced none (for example only tool calls). */
            content: string | null;
        };
        ChatCompletionChoice: {
            index: number;
            message: components["schemas"]["ChatCompletionMessage"];
            /** @description Why generation stopped, for example `stop` or `length`. */
            finish_reason?: string | null;
        };
        ChatCompletionUsage: {
            prompt_tokens?: number;
            completion_tokens?: number;
            total_tokens?: number;
        };
        /** @description A chat-completion object. The reply text is at `choices[0].message.content`. */
        ChatCompletion: {
            id: string;
            /** @constant */
            object: "chat.completion";
            /** @description Unix time in seconds. */
            created: number;
            model: string;
            choices: components["schemas"]["ChatCompletionChoice"][];
            usage?: components["schemas"]["ChatCompletionUsage"];
        };
        /**
         * @description vLLM's error object. Versions differ (older ones send the fields at the top level, newer ones inside
         *     `error`), so every field is optional.
         */
        ChatErrorBody: {
            object?: string;
            message?: string;
            type?: string;
            code?: number;
            error?: {
                message?: string;
                type?: string;
                code?: number;
            };
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
            root?: string;
            /** @description For a LoRA adapter, the base model it runs on; null for a base model. */
            parent?: string | null;
            max_model_len?: number;
        };
        ModelList: {
            /** @constant */
            object: "list";
            data: components["schemas"]["Model"][];
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
                 *         "code": 400
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["ChatErrorBody"];
            };
        };
        /** @description The server was started with an API key and the request did not send it. */
        ChatUnauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "error": {
                 *         "message": "Unauthorized",
                 *         "type": "Unauthorized",
                 *         "code": 401
                 *       }
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
            /** @description The completion. The reply text is at `choices[0].message.content`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChatCompletion"];
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
}
