import type { FetchFunction } from "@finetune-studio/client";

/**
 * Prism answers a static mock, always the same example. To show polling, the walkthrough asks it for the
 * `processing` example for the first few recommendation reads (Prism's `Prefer: example=<name>` header),
 * then lets it answer with the default, `completed`.
 */
export function scriptedRecommendations(processingReads: number): FetchFunction {
  let reads = 0;
  return (request) => {
    if (new URL(request.url).pathname.includes("/recommendations/") && reads++ < processingReads) {
      request.headers.set("Prefer", "example=processing");
    }
    return fetch(request);
  };
}
