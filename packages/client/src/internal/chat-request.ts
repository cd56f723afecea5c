import { StudioValidationError } from "../errors.js";
import { describeValue } from "./describe.js";
import { isPlainObject } from "./validate.js";

// The rules of ChatCompletionRequest in the chat-completions contract. Fields beyond these pass through.

export function validateChatRequest(request: unknown): void {
  if (!isPlainObject(request)) {
    throw new StudioValidationError("request", "must be an object", describeValue(request));
  }
  const { model, messages, max_tokens, temperature, stream } = request;
  if (typeof model !== "string" || model === "") {
    throw new StudioValidationError(
      "model",
      "must be a non-empty string: the served model name or the adapter name",
      describeValue(model),
    );
  }
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new StudioValidationError("messages", "must be a non-empty array", describeValue(messages));
  }
  messages.forEach((message: unknown, index) => {
    if (!isPlainObject(message)) {
      throw new StudioValidationError(`messages[${index}]`, "must be an object", describeValue(message));
    }
    if (typeof message.role !== "string" || message.role === "") {
      throw new StudioValidationError(
        `messages[${index}].role`,
        "must be a non-empty string (system, user, assistant...)",
        describeValue(message.role),
      );
    }
    if (typeof message.content !== "string") {
      throw new StudioValidationError(
        `messages[${index}].content`,
        "must be a string",
        describeValue(message.content),
      );
    }
  });
  if (typeof max_tokens !== "number" || !Number.isInteger(max_tokens) || max_tokens < 1) {
    throw new StudioValidationError(
      "max_tokens",
      "must be an integer of 1 or more",
      describeValue(max_tokens),
    );
  }
  if (
    temperature !== undefined &&
    (typeof temperature !== "number" || !Number.isFinite(temperature) || temperature < 0)
  ) {
    throw new StudioValidationError(
      "temperature",
      "must be a finite number of 0 or more when given",
      describeValue(temperature),
    );
  }
  if (stream !== undefined && stream !== false) {
    // A stream answers server-sent events; complete() reads one JSON object.
    throw new StudioValidationError(
      "stream",
      "must be false or absent: complete() reads one JSON completion",
      describeValue(stream),
    );
  }
}
