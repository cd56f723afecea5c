// Generated from openapi/studio.yaml and openapi/chat-completions.yaml by packages/types/scripts/generate.mjs: do not edit.
// Run `pnpm generate` to regenerate.

/** The limits of openapi/studio.yaml: per operation parameter and per schema property. */
export const studioLimits = {
  "operations": {
    "getProjectTree": {
      "path": {
        "projectId": {
          "format": "uuid"
        }
      }
    },
    "getRecommendations": {
      "path": {
        "snapshotId": {
          "format": "uuid"
        }
      }
    },
    "updateTrace": {
      "path": {
        "id": {
          "format": "uuid"
        }
      }
    }
  },
  "schemas": {
    "DatasetMetadata": {
      "id": {
        "format": "uuid"
      }
    },
    "DatasetNode": {
      "id": {
        "format": "uuid"
      }
    },
    "ExperimentNode": {
      "id": {
        "format": "uuid"
      }
    },
    "FinetuningJobMetadata": {
      "id": {
        "format": "uuid"
      }
    },
    "FinetuningJobNode": {
      "id": {
        "format": "uuid"
      }
    },
    "ProjectNode": {
      "id": {
        "format": "uuid"
      }
    },
    "Recommendations": {
      "snapshot_id": {
        "format": "uuid"
      }
    },
    "SnapshotMetadata": {
      "id": {
        "format": "uuid"
      }
    },
    "SnapshotNode": {
      "id": {
        "format": "uuid"
      }
    },
    "Trace": {
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
    },
    "TraceUpdate": {
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
    }
  }
} as const;

/** The limits of openapi/chat-completions.yaml: per operation parameter and per schema property. */
export const chatLimits = {
  "operations": {},
  "schemas": {
    "ChatCompletionChoice": {
      "index": {
        "minimum": 0
      }
    },
    "ChatCompletionChunkChoice": {
      "index": {
        "minimum": 0
      }
    },
    "ChatCompletionRequest": {
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
        "minimum": -1
      },
      "max_tokens": {
        "minimum": 1
      },
      "max_completion_tokens": {
        "minimum": 1
      },
      "n": {
        "minimum": 1
      },
      "presence_penalty": {
        "minimum": -2,
        "maximum": 2
      },
      "seed": {
        "minimum": -9223372036854776000,
        "maximum": 9223372036854776000
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
        "minimum": -1
      },
      "min_p": {
        "minimum": 0,
        "maximum": 1
      },
      "repetition_penalty": {
        "exclusiveMinimum": 0
      },
      "min_tokens": {
        "minimum": 0
      },
      "truncate_prompt_tokens": {
        "minimum": -1
      },
      "prompt_logprobs": {
        "minimum": -1
      },
      "logprob_token_ids": {
        "minItems": 1
      },
      "priority": {
        "minimum": -9223372036854776000,
        "maximum": 9223372036854776000
      },
      "cache_salt": {
        "minLength": 1,
        "maxLength": 128,
        "pattern": "^[^@/\\\\\\u0000]*$"
      },
      "stream_interval": {
        "minimum": 1
      }
    },
    "ChatCompletionUsage": {
      "prompt_tokens": {
        "minimum": 0
      },
      "completion_tokens": {
        "minimum": 0
      },
      "total_tokens": {
        "minimum": 0
      }
    },
    "ChatToolCallDelta": {
      "index": {
        "minimum": 0
      }
    }
  }
} as const;
