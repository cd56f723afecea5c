// Generated from openapi/studio.yaml by packages/types/scripts/generate.mjs: do not edit.
// Run `pnpm generate` to regenerate.

export interface paths {
    "/api/v1/public/projects/{projectId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a project tree
         * @description Returns the project with its datasets, their snapshots, the snapshots' fine-tuning jobs and the jobs'
         *     experiments, nested under `children`. The `type` of each node says its level.
         */
        get: operations["getProjectTree"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/public/recommendations/{snapshotId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read recommendations for a snapshot
         * @description Returns the base models and hyperparameters the service recommends for a snapshot.
         *
         *     While `status` is `processing` the lists may be absent, null or not yet final; poll until `status` is
         *     `completed` (or `failed`). The specification says nothing beyond the status name.
         */
        get: operations["getRecommendations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/traces/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Update a trace
         * @description Sets a trace's score, feedback and linked project. Every body field is optional; a field that is left
         *     out is not changed. `feedback` and `projectId` accept `null` (clear the feedback, unlink the project);
         *     `score` does not. Returns the whole trace, every field present.
         */
        put: operations["updateTrace"];
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
        /**
         * @description The node statuses the vendor's own SDK lists (prem-ts-sdk 0.18.1). The specification does not close the
         *     set, so a node may carry another status: see NodeStatus.
         * @enum {string}
         */
        KnownNodeStatus: "processing" | "completed" | "failed" | "pending" | "queued" | "running" | "deploying" | "succeeded" | "deleted";
        /**
         * @description Status of a tree node: one of the known values, or another string. The specification does not close the
         *     set, so a status this version does not know is still a status; treat it as not final.
         * @example processing
         * @example succeeded
         */
        NodeStatus: components["schemas"]["KnownNodeStatus"] | string;
        DatasetMetadata: {
            /** Format: uuid */
            id?: string;
            /** @description Number of datapoints in the dataset. */
            datapoints_count?: number;
        };
        SnapshotMetadata: {
            /** Format: uuid */
            id?: string;
            /** @description Number of datapoints in the training split. */
            training_count?: number;
            /** @description Number of datapoints in the validation split. */
            validation_count?: number;
            /** @description When the snapshot was created. The specification types it as a plain string, with no format. */
            created_at?: string;
        };
        FinetuningJobMetadata: {
            /** Format: uuid */
            id?: string;
            /** @description Whether the job trains a reasoning model. */
            reasoning?: boolean;
        };
        /**
         * @description The specification names these fields without publishing their types; the types here are the ones the
         *     vendor's own SDK states (prem-ts-sdk 0.18.1). Every field is optional, as the specification leaves them.
         */
        ExperimentMetadata: {
            /** @description The experiment's id. */
            id?: string;
            /** @description The experiment's number within its fine-tuning job. */
            experiment_number?: number;
            /** @description The base model the experiment trains. */
            base_model_id?: string;
            /** @description The fine-tuned model the experiment produces. */
            model_id?: string;
        };
        /** @description An experiment, one training run of a job on a base model. The specification gives it no children. */
        ExperimentNode: {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "experiment";
            label: string;
            status?: components["schemas"]["NodeStatus"];
            metadata?: components["schemas"]["ExperimentMetadata"];
        };
        /** @description A fine-tuning job run on a snapshot. Its children are experiments. */
        FinetuningJobNode: {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "finetuning-job";
            label: string;
            status?: components["schemas"]["NodeStatus"];
            metadata?: components["schemas"]["FinetuningJobMetadata"];
            /** @description The job's experiments. */
            children?: components["schemas"]["ExperimentNode"][];
        };
        /** @description A snapshot, a frozen training/validation split of a dataset. Its children are fine-tuning jobs. */
        SnapshotNode: {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "snapshot";
            label: string;
            status?: components["schemas"]["NodeStatus"];
            metadata?: components["schemas"]["SnapshotMetadata"];
            /** @description The snapshot's fine-tuning jobs. */
            children?: components["schemas"]["FinetuningJobNode"][];
        };
        /** @description A dataset of the project. Its children are snapshots. */
        DatasetNode: {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "dataset";
            label: string;
            status?: components["schemas"]["NodeStatus"];
            metadata?: components["schemas"]["DatasetMetadata"];
            /** @description The dataset's snapshots. */
            children?: components["schemas"]["SnapshotNode"][];
        };
        /** @description The root of the tree. A project node has a `name` where every other node has a `label`. */
        ProjectNode: {
            /** Format: uuid */
            id: string;
            /** @constant */
            type: "project";
            name: string;
            status?: components["schemas"]["NodeStatus"];
            /** @description The specification lists no metadata fields for a project; any that come are passed on. */
            metadata?: {
                [key: string]: unknown;
            };
            /** @description The project's datasets. */
            children?: components["schemas"]["DatasetNode"][];
        };
        /** @description The response of a project tree read. The project sits under the required key `project`. */
        ProjectTree: {
            project: components["schemas"]["ProjectNode"];
        };
        /**
         * @description The specification does not publish error bodies: **their shape is not guaranteed**. Services commonly
         *     send a JSON object with a message, but a proxy in front of the service may answer with HTML or plain text.
         *     Read it defensively.
         */
        ErrorBody: {
            [key: string]: unknown;
        };
        /**
         * @description `processing` while the service computes, then `completed` or `failed`.
         * @enum {string}
         */
        RecommendationStatus: "processing" | "completed" | "failed";
        HyperparameterSet: {
            n_epochs?: number;
            batch_size?: number;
            learning_rate_multiplier?: number;
        };
        /** @description A base model the service recommends, with hyperparameters for full and for LoRA fine-tuning. */
        RecommendedModel: {
            base_model_id?: string;
            /** @description Whether this is the model the service recommends most. */
            recommended?: boolean;
            /** @description Hyperparameters for full fine-tuning. */
            full_hyperparameters?: components["schemas"]["HyperparameterSet"] | null;
            /** @description Hyperparameters for LoRA fine-tuning. */
            lora_hyperparameters?: components["schemas"]["HyperparameterSet"] | null;
            reason_for_recommendation?: string | null;
        };
        /** @description An experiment the service recommends running: a base model, hyperparameters, and LoRA or full. */
        RecommendedExperiment: {
            base_model_id?: string;
            batch_size?: number;
            learning_rate_multiplier?: number;
            n_epochs?: number;
            /** @description True for LoRA fine-tuning, false for full fine-tuning. */
            lora?: boolean;
            /** @description Whether this is the experiment the service recommends most. */
            recommended?: boolean;
            reason_for_recommendation?: string | null;
        };
        /**
         * @description What the service recommends for a snapshot. While `status` is `processing`, the lists may be absent, null
         *     or not yet final.
         */
        Recommendations: {
            /** Format: uuid */
            snapshot_id: string;
            status: components["schemas"]["RecommendationStatus"];
            recommended_models?: components["schemas"]["RecommendedModel"][] | null;
            recommended_experiments?: components["schemas"]["RecommendedExperiment"][] | null;
        };
        /**
         * @description The fields of a trace that can be updated. Every field is optional. Fields outside this list are refused
         *     so that a misspelt field fails loudly instead of being ignored.
         */
        TraceUpdate: {
            /** @description The updated evaluator score, between 0 and 1 inclusive. */
            score?: number;
            /** @description Feedback for the trace, at most 2048 characters (Unicode code points); null clears it. */
            feedback?: string | null;
            /**
             * Format: uuid
             * @description Project to associate with the trace; null unlinks it.
             */
            projectId?: string | null;
        };
        /**
         * @description Background processing status, used when generating improved datapoints.
         * @enum {string}
         */
        TraceProcessingStatus: "none" | "processing" | "failed";
        /** @description A recorded model input and output. Every field is always present; some may be null. */
        Trace: {
            /**
             * Format: uuid
             * @description Unique trace identifier.
             */
            id: string;
            /**
             * Format: date-time
             * @description When the trace was recorded (ISO timestamp).
             */
            createdAt: string;
            /** @description Model identifier attached to the trace. */
            modelId: string;
            /**
             * Format: uuid
             * @description Linked project; null when not linked.
             */
            projectId: string | null;
            /** @description Prompt or message given to the model. */
            input: string;
            /** @description Model response captured. */
            output: string;
            /** @description Evaluator score between 0 and 1 inclusive; null when not yet scored. */
            score: number | null;
            /** @description Feedback for the trace, at most 2048 characters (Unicode code points). */
            feedback: string | null;
            /** @description Whether the trace is already in the dataset. */
            addedToDataset: boolean;
            processingStatus: components["schemas"]["TraceProcessingStatus"];
        };
    };
    responses: {
        /** @description The request was malformed, for example an id that is not a uuid. The body's shape is not guaranteed. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "The request is malformed."
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The Authorization header is missing or its bearer token is not valid. The body's shape is not guaranteed. */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Missing or invalid bearer token."
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The token is valid but may not access this resource. The body's shape is not guaranteed. */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "This token may not access this resource."
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description No resource with this id is visible to the token. The body's shape is not guaranteed. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Not found."
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /**
         * @description Too many requests. Rate limits are not published; wait as long as `Retry-After` says, when it is sent,
         *     then retry. The body's shape is not guaranteed.
         */
        TooManyRequests: {
            headers: {
                /** @description Seconds to wait, or an HTTP date after which to retry. */
                "Retry-After"?: string;
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Too many requests."
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The service failed or is unavailable; retrying later may succeed. The body's shape is not guaranteed. */
        ServerError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Internal server error."
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"];
            };
        };
        /** @description The body is well-formed JSON but breaks a rule, for example a score above 1 or feedback over 2048 characters. The body's shape is not guaranteed. */
        UnprocessableEntity: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "score must be between 0 and 1."
                 *     }
                 */
                "application/json": components["schemas"]["ErrorBody"];
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
    getProjectTree: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The project's id.
                 * @example 6f1c2a8e-4b7d-4e5a-9c3f-2d8b7a1e0f45
                 */
                projectId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The project tree. (The specification does not publish success codes; 200 is assumed.) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProjectTree"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            "5XX": components["responses"]["ServerError"];
        };
    };
    getRecommendations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The snapshot's id.
                 * @example 0b5e9d4c-7a21-4f3e-8d6b-1c9a2e4f7b80
                 */
                snapshotId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The recommendations. (The specification does not publish success codes; 200 is assumed.) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Recommendations"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["TooManyRequests"];
            "5XX": components["responses"]["ServerError"];
        };
    };
    updateTrace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The trace's id.
                 * @example 3d2f8a61-95c4-4b0e-a7d3-6e1f0c9b8a27
                 */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TraceUpdate"];
            };
        };
        responses: {
            /** @description The updated trace, every field present. (The specification does not publish success codes; 200 is assumed.) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Trace"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["UnprocessableEntity"];
            429: components["responses"]["TooManyRequests"];
            "5XX": components["responses"]["ServerError"];
        };
    };
}
