// Generated from openapi/studio.yaml and openapi/chat-completions.yaml by packages/types/scripts/generate.mjs: do not edit.
// Run `pnpm generate` to regenerate.

/** The limits of getProjectTree in openapi/studio.yaml. */
export const getProjectTreeLimits = {
  "path": {
    "projectId": {
      "format": "uuid"
    }
  }
} as const;

/** The limits of getRecommendations in openapi/studio.yaml. */
export const getRecommendationsLimits = {
  "path": {
    "snapshotId": {
      "format": "uuid"
    }
  }
} as const;

/** The limits of updateTrace in openapi/studio.yaml. */
export const updateTraceLimits = {
  "path": {
    "id": {
      "format": "uuid"
    }
  }
} as const;

/** The limits of DatasetMetadata in openapi/studio.yaml. */
export const datasetMetadataLimits = {
  "id": {
    "format": "uuid"
  }
} as const;

/** The limits of DatasetNode in openapi/studio.yaml. */
export const datasetNodeLimits = {
  "id": {
    "format": "uuid"
  }
} as const;

/** The limits of ExperimentNode in openapi/studio.yaml. */
export const experimentNodeLimits = {
  "id": {
    "format": "uuid"
  }
} as const;

/** The limits of FinetuningJobMetadata in openapi/studio.yaml. */
export const finetuningJobMetadataLimits = {
  "id": {
    "format": "uuid"
  }
} as const;

/** The limits of FinetuningJobNode in openapi/studio.yaml. */
export const finetuningJobNodeLimits = {
  "id": {
    "format": "uuid"
  }
} as const;

/** The limits of ProjectNode in openapi/studio.yaml. */
export const projectNodeLimits = {
  "id": {
    "format": "uuid"
  }
} as const;

/** The limits of Recommendations in openapi/studio.yaml. */
export const recommendationsLimits = {
  "snapshot_id": {
    "format": "uuid"
  }
} as const;

/** The limits of SnapshotMetadata in openapi/studio.yaml. */
export const snapshotMetadataLimits = {
  "id": {
    "format": "uuid"
  }
} as const;

/** The limits of SnapshotNode in openapi/studio.yaml. */
export const snapshotNodeLimits = {
  "id": {
    "format": "uuid"
  }
} as const;

/** The limits of Trace in openapi/studio.yaml. */
export const traceLimits = {
  "id": {
    "format": "uuid"
  },
  "createdAt": {
    "format": "date-time"
  },
  "projectId": {
    "format": "uuid"
  },
  "score": {
    "minimum": 0,
    "maximum": 1
  },
  "feedback": {
    "maxLength": 2048
  }
} as const;

/** The limits of TraceUpdate in openapi/studio.yaml. */
export const traceUpdateLimits = {
  "score": {
    "minimum": 0,
    "maximum": 1
  },
  "feedback": {
    "maxLength": 2048
  },
  "projectId": {
    "format": "uuid"
  }
} as const;

/** The limits of openapi/studio.yaml: per operation parameter and per schema property. */
export const studioLimits = {
  operations: {
    "getProjectTree": getProjectTreeLimits,
    "getRecommendations": getRecommendationsLimits,
    "updateTrace": updateTraceLimits,
  },
  schemas: {
    "DatasetMetadata": datasetMetadataLimits,
    "DatasetNode": datasetNodeLimits,
    "ExperimentNode": experimentNodeLimits,
    "FinetuningJobMetadata": finetuningJobMetadataLimits,
    "FinetuningJobNode": finetuningJobNodeLimits,
    "ProjectNode": projectNodeLimits,
    "Recommendations": recommendationsLimits,
    "SnapshotMetadata": snapshotMetadataLimits,
    "SnapshotNode": snapshotNodeLimits,
    "Trace": traceLimits,
    "TraceUpdate": traceUpdateLimits,
  },
} as const;

/** The limits of ChatCompletionChoice in openapi/chat-completions.yaml. */
export const chatCompletionChoiceLimits = {
  "index": {
    "minimum": 0,
    "type": "integer"
  }
} as const;

/** The limits of ChatCompletionChunkChoice in openapi/chat-completions.yaml. */
export const chatCompletionChunkChoiceLimits = {
  "index": {
    "minimum": 0,
    "type": "integer"
  }
} as const;

/** The limits of ChatCompletionRequest in openapi/chat-completions.yaml. */
export const chatCompletionRequestLimits = {
  "messages": {
    "minItems": 1
  },
  "model": {
    "minLength": 1
  },
  "frequency_penalty": {
    "minimum": -2,
    "maximum": 2
  },
  "top_logprobs": {
    "minimum": -1,
    "type": "integer"
  },
  "max_tokens": {
    "minimum": 1,
    "type": "integer"
  },
  "max_completion_tokens": {
    "minimum": 1,
    "type": "integer"
  },
  "n": {
    "minimum": 1,
    "type": "integer"
  },
  "presence_penalty": {
    "minimum": -2,
    "maximum": 2
  },
  "seed": {
    "minimum": -9223372036854776000,
    "maximum": 9223372036854776000,
    "type": "integer"
  },
  "temperature": {
    "minimum": 0
  },
  "top_p": {
    "maximum": 1,
    "exclusiveMinimum": 0
  },
  "tools": {
    "minItems": 1
  },
  "top_k": {
    "minimum": -1,
    "type": "integer"
  },
  "min_p": {
    "minimum": 0,
    "maximum": 1
  },
  "repetition_penalty": {
    "exclusiveMinimum": 0
  },
  "min_tokens": {
    "minimum": 0,
    "type": "integer"
  },
  "truncate_prompt_tokens": {
    "minimum": -1,
    "type": "integer"
  },
  "prompt_logprobs": {
    "minimum": -1,
    "type": "integer"
  },
  "logprob_token_ids": {
    "minItems": 1
  },
  "priority": {
    "minimum": -9223372036854776000,
    "maximum": 9223372036854776000,
    "type": "integer"
  },
  "cache_salt": {
    "minLength": 1,
    "maxLength": 128,
    "pattern": "^[^@/\\\\\\u0000]*$"
  },
  "stream_interval": {
    "minimum": 1,
    "type": "integer"
  }
} as const;

/** The limits of ChatCompletionUsage in openapi/chat-completions.yaml. */
export const chatCompletionUsageLimits = {
  "prompt_tokens": {
    "minimum": 0,
    "type": "integer"
  },
  "completion_tokens": {
    "minimum": 0,
    "type": "integer"
  },
  "total_tokens": {
    "minimum": 0,
    "type": "integer"
  }
} as const;

/** The limits of ChatToolCallDelta in openapi/chat-completions.yaml. */
export const chatToolCallDeltaLimits = {
  "index": {
    "minimum": 0,
    "type": "integer"
  }
} as const;

/** The limits of openapi/chat-completions.yaml: per operation parameter and per schema property. */
export const chatLimits = {
  operations: {},
  schemas: {
    "ChatCompletionChoice": chatCompletionChoiceLimits,
    "ChatCompletionChunkChoice": chatCompletionChunkChoiceLimits,
    "ChatCompletionRequest": chatCompletionRequestLimits,
    "ChatCompletionUsage": chatCompletionUsageLimits,
    "ChatToolCallDelta": chatToolCallDeltaLimits,
  },
} as const;
