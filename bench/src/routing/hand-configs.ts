import type { RoutingPolicy } from "@finetune-studio/serve-kit";

// Each routing policy as a user would configure it by hand in plain HAProxy, following HAProxy's manual:
// `balance leastconn`; `balance hdr(...)` with consistent hashing (requests without the header go round
// robin); `balance hash` on the body's second message (the first user message after a system prompt).
// With `option http-no-delay`, so that time to first token compares routing, not HAProxy's hold-back of
// unfinished responses (the paced-streams section shows that one).

export function handRoutingConfig(
  policy: RoutingPolicy,
  port: number,
  instancePorts: readonly number[],
): string {
  const balance = {
    "least-busy": ["    balance leastconn"],
    session: ["    balance hdr(x-session-id)", "    hash-type consistent"],
    prefix: [
      "    option http-buffer-request",
      "    balance hash req.body,json_query('$.messages[1].content')",
      "    hash-type consistent",
    ],
  }[policy];
  return [
    "global",
    "    maxconn 4096",
    "defaults",
    "    mode http",
    "    timeout connect 5s",
    "    timeout client 600s",
    "    timeout server 600s",
    "    option http-no-delay",
    "frontend front",
    `    bind 127.0.0.1:${port}`,
    "    default_backend instances",
    "backend instances",
    ...balance,
    ...instancePorts.map((instancePort, i) => `    server s${i} 127.0.0.1:${instancePort}`),
    "",
  ].join("\n");
}
