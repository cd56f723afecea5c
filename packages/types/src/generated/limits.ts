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
    "ChatCompletionRequest": {
      "model": {
        "minLength": 1
      },
      "messages": {
        "minItems": 1
      },
      "max_tokens": {
        "minimum": 1
      },
      "temperature": {
        "minimum": 0
      }
    }
  }
} as const;
