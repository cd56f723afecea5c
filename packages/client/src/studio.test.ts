import { afterEach, describe, expect, it, vi } from "vitest";
import { createChatClient } from "./chat.js";
import {
  StudioApiError,
  StudioAuthError,
  StudioConnectionError,
  StudioError,
  StudioNotFoundError,
  StudioRateLimitError,
  StudioServerError,
  StudioTimeoutError,
  StudioValidationError,
} from "./errors.js";
import type { StudioRequestLog } from "./logger.js";
import { createStudioClient, type StudioClientOptions } from "./studio.js";
import { connectionReset, fakeFetch, hangingFetch, json } from "./test/fake-fetch.js";
import { fullTree, ids, scoredTrace } from "./test/fixtures.js";

const token = "tok_unit_0123456789";
const baseUrl = "https://studio.example.net";
const noWait = { "retry-after-ms": "0" };

function client(fetch: StudioClientOptions["fetch"], extra: Partial<StudioClientOptions> = {}) {
  return createStudioClient({ baseUrl, token, fetch, ...extra });
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("createStudioClient options", () => {
  it.each<[string, { given: Record<string, unknown>; field: string }]>([
    ["no token", { given: { baseUrl }, field: "token" }],
    ["an empty token", { given: { baseUrl, token: "" }, field: "token" }],
    ["a blank token", { given: { baseUrl, token: "   " }, field: "token" }],
    ["a token with a line break", { given: { baseUrl, token: "secret-canary\nX-Evil: 1" }, field: "token" }],
    ["no baseUrl", { given: { token }, field: "baseUrl" }],
    ["http to a remote host", { given: { baseUrl: "http://studio.example.net", token }, field: "baseUrl" }],
    ["http to a private address", { given: { baseUrl: "http://10.0.0.5:8080", token }, field: "baseUrl" }],
    // The system resolver may send a *.localhost name anywhere: it is not this machine for plain http.
    [
      "http to a *.localhost name",
      { given: { baseUrl: "http://studio.localhost:4010", token }, field: "baseUrl" },
    ],
    [
      "a maxResponseBytes of 0",
      { given: { baseUrl, token, maxResponseBytes: 0 }, field: "maxResponseBytes" },
    ],
    [
      "credentials in the baseUrl",
      { given: { baseUrl: "https://u:p@studio.example.net", token }, field: "baseUrl" },
    ],
    [
      "a query in the baseUrl",
      { given: { baseUrl: "https://studio.example.net?x=1", token }, field: "baseUrl" },
    ],
    ["negative maxRetries", { given: { baseUrl, token, maxRetries: -1 }, field: "maxRetries" }],
    ["fractional maxRetries", { given: { baseUrl, token, maxRetries: 1.5 }, field: "maxRetries" }],
    ["a zero timeout", { given: { baseUrl, token, timeoutMs: 0 }, field: "timeoutMs" }],
    [
      "a timeout setTimeout cannot hold",
      { given: { baseUrl, token, timeoutMs: 2 ** 31 }, field: "timeoutMs" },
    ],
    ["headers that are not an object", { given: { baseUrl, token, headers: "x" }, field: "headers" }],
    // Refused before any request, and without echoing the value: a header may carry a credential.
    [
      "a header value fetch would refuse",
      { given: { baseUrl, token, headers: { "X-Key": "secret-canary\nX-Injected: 1" } }, field: "headers" },
    ],
    [
      "a header name fetch would refuse",
      { given: { baseUrl, token, headers: { "X Key": "1" } }, field: "headers" },
    ],
    ["a logger that is not a function", { given: { baseUrl, token, logger: {} }, field: "logger" }],
  ])("refuses %s", (_, { given, field }) => {
    const error = (() => {
      try {
        createStudioClient(given as never);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StudioValidationError);
    expect(error).toMatchObject({ field });
    expect(String((error as Error).message)).not.toContain("secret-canary");
  });

  it.each([
    ["http to localhost", "http://localhost:4010"],
    ["http to 127.0.0.1", "http://127.0.0.1:4010"],
    ["http to [::1]", "http://[::1]:4010"],
    ["https anywhere", "https://studio.example.net/"],
  ])("accepts %s", (_, url) => {
    expect(() => createStudioClient({ baseUrl: url, token })).not.toThrow();
  });

  it("accepts http to a remote host only with allowInsecureHttp", () => {
    expect(() =>
      createStudioClient({ baseUrl: "http://studio.internal", token, allowInsecureHttp: true }),
    ).not.toThrow();
  });
});

describe("in a browser (window and document exist)", () => {
  const scope = globalThis as { window?: unknown; document?: unknown };
  afterEach(() => {
    delete scope.window;
    delete scope.document;
  });

  it("refuses a Studio client, whose token every script of the page could read, without the opt-in", () => {
    scope.window = {};
    scope.document = {};
    expect(() => createStudioClient({ baseUrl, token })).toThrow(
      expect.objectContaining({ name: "StudioValidationError", field: "dangerouslyAllowBrowser" }),
    );
    expect(() => createStudioClient({ baseUrl, token, dangerouslyAllowBrowser: true })).not.toThrow();
  });

  it("creates the chat client, whose local server needs no real key", () => {
    scope.window = {};
    scope.document = {};
    expect(() => createChatClient({ baseUrl: "http://127.0.0.1:8000" })).not.toThrow();
  });

  it("is not a browser with only one of them (a worker, Deno)", () => {
    scope.window = {};
    expect(() => createStudioClient({ baseUrl, token })).not.toThrow();
  });
});

describe("requests", () => {
  it("sends GET <baseUrl><prefix>/api/v1/public/projects/{id} with the bearer token and extra headers", async () => {
    const fetch = fakeFetch(json(fullTree));
    const studio = createStudioClient({
      baseUrl: "https://studio.example.net/gateway/",
      token,
      fetch,
      headers: { "X-Team": "ml", authorization: "Bearer not-this-one" },
    });
    await expect(studio.getProjectTree(ids.project)).resolves.toEqual(fullTree);
    const [request] = fetch.requests;
    expect(request?.method).toBe("GET");
    expect(request?.url).toBe(`https://studio.example.net/gateway/api/v1/public/projects/${ids.project}`);
    expect(request?.headers.get("authorization")).toBe(`Bearer ${token}`);
    expect(request?.headers.get("x-team")).toBe("ml");
  });

  it("sends PUT /api/v1/traces/{id} with a JSON body holding only the fields given", async () => {
    const fetch = fakeFetch(json(scoredTrace));
    await expect(client(fetch).updateTrace(ids.trace, { score: 1, feedback: null })).resolves.toEqual(
      scoredTrace,
    );
    const [request] = fetch.requests;
    expect(request?.method).toBe("PUT");
    expect(new URL(request?.url ?? "").pathname).toBe(`/api/v1/traces/${ids.trace}`);
    expect(request?.headers.get("content-type")).toBe("application/json");
    expect(fetch.bodies[0]).toBe('{"score":1,"feedback":null}');
  });

  it("accepts feedback of exactly 2048 code points even when that is 4096 UTF-16 units", async () => {
    const fetch = fakeFetch(json(scoredTrace));
    const feedback = "😀".repeat(2048);
    await client(fetch).updateTrace(ids.trace, { feedback, projectId: null });
    expect(JSON.parse(fetch.bodies[0] ?? "")).toEqual({ feedback, projectId: null });
  });

  it("sends the same PUT body again on a retry, through a fetch of your own", async () => {
    const fetch = fakeFetch(json({}, { status: 503, headers: noWait }), json(scoredTrace));
    await client(fetch).updateTrace(ids.trace, { score: 0.5, feedback: "again" });
    expect(fetch.bodies).toEqual(['{"score":0.5,"feedback":"again"}', '{"score":0.5,"feedback":"again"}']);
    expect(fetch.requests.map((r) => r.headers.get("authorization"))).toEqual([
      `Bearer ${token}`,
      `Bearer ${token}`,
    ]);
  });

  it("accepts upper-case uuids and an empty update", async () => {
    const fetch = fakeFetch(json(scoredTrace));
    await client(fetch).updateTrace(ids.trace.toUpperCase(), {});
    expect(fetch.bodies[0]).toBe("{}");
  });
});

describe("validation before sending", () => {
  const cases: [string, { run: (studio: ReturnType<typeof client>) => Promise<unknown>; field: string }][] = [
    ["a path trick as project id", { run: (s) => s.getProjectTree("../../admin"), field: "projectId" }],
    ["an empty project id", { run: (s) => s.getProjectTree(""), field: "projectId" }],
    ["a number as project id", { run: (s) => s.getProjectTree(42 as never), field: "projectId" }],
    ["a uuid with a suffix", { run: (s) => s.getRecommendations(`${ids.snapshot}/x`), field: "snapshotId" }],
    ["a urn uuid", { run: (s) => s.getRecommendations(`urn:uuid:${ids.snapshot}`), field: "snapshotId" }],
    ["a bad trace id", { run: (s) => s.updateTrace("trace-1", { score: 1 }), field: "traceId" }],
    ["a score above 1", { run: (s) => s.updateTrace(ids.trace, { score: 1.01 }), field: "score" }],
    ["a score below 0", { run: (s) => s.updateTrace(ids.trace, { score: -0.01 }), field: "score" }],
    ["a NaN score", { run: (s) => s.updateTrace(ids.trace, { score: Number.NaN }), field: "score" }],
    [
      "an infinite score",
      { run: (s) => s.updateTrace(ids.trace, { score: Number.POSITIVE_INFINITY }), field: "score" },
    ],
    ["a string score", { run: (s) => s.updateTrace(ids.trace, { score: "0.5" as never }), field: "score" }],
    ["a null score", { run: (s) => s.updateTrace(ids.trace, { score: null as never }), field: "score" }],
    [
      "feedback of 2049 code points",
      { run: (s) => s.updateTrace(ids.trace, { feedback: "a".repeat(2049) }), field: "feedback" },
    ],
    [
      "numeric feedback",
      { run: (s) => s.updateTrace(ids.trace, { feedback: 5 as never }), field: "feedback" },
    ],
    ["a bad projectId", { run: (s) => s.updateTrace(ids.trace, { projectId: "p-1" }), field: "projectId" }],
    [
      "a misspelt field",
      { run: (s) => s.updateTrace(ids.trace, { scroe: 1 } as never), field: "update.scroe" },
    ],
    [
      "an update that is not an object",
      { run: (s) => s.updateTrace(ids.trace, null as never), field: "update" },
    ],
    [
      "a negative per-call timeout",
      { run: (s) => s.getProjectTree(ids.project, { timeoutMs: -5 }), field: "options.timeoutMs" },
    ],
    [
      "a poll interval of 0",
      {
        run: (s) => s.waitForRecommendations(ids.snapshot, { intervalMs: 0 }),
        field: expect.stringContaining("intervalMs"),
      },
    ],
  ];

  it.each(cases)("refuses %s, naming the field, without a request", async (_, { run, field }) => {
    const fetch = fakeFetch(json({}));
    const error = await run(client(fetch)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioValidationError);
    expect(error).toMatchObject({ field });
    expect(fetch.requests).toHaveLength(0);
  });

  it("says what was given, briefly", async () => {
    const error = await client(fakeFetch(json({})))
      .updateTrace(ids.trace, { feedback: "a".repeat(2049) })
      .catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      "feedback must be a string of at most 2048 Unicode code points, or null (got a string of 2049 code points)",
    );
  });
});

describe("answers", () => {
  it.each<[number, typeof StudioApiError]>([
    [400, StudioApiError],
    [401, StudioAuthError],
    [403, StudioAuthError],
    [404, StudioNotFoundError],
    [422, StudioApiError],
  ])("raises on %i without retrying", async (status, type) => {
    const fetch = fakeFetch(json({ message: "nope" }, { status, headers: { "x-request-id": "req-1" } }));
    const error = await client(fetch)
      .getProjectTree(ids.project)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({ status, body: { message: "nope" }, requestId: "req-1", method: "GET" });
    expect((error as StudioApiError).headers["x-request-id"]).toBe("req-1");
    expect(fetch.requests).toHaveLength(1);
  });

  it.each<[number, typeof StudioApiError]>([
    [408, StudioApiError],
    [409, StudioApiError],
    [429, StudioRateLimitError],
    [500, StudioServerError],
    [502, StudioServerError],
    [503, StudioServerError],
    [504, StudioServerError],
  ])("retries %i up to maxRetries, then raises", async (status, type) => {
    const fetch = fakeFetch(json({}, { status, headers: noWait }));
    await expect(client(fetch).getRecommendations(ids.snapshot)).rejects.toBeInstanceOf(type);
    expect(fetch.requests).toHaveLength(3);
  });

  it("retries a connection error and succeeds", async () => {
    const fetch = fakeFetch(connectionReset(), json(fullTree));
    vi.spyOn(Math, "random").mockReturnValue(1);
    vi.useFakeTimers();
    const result = client(fetch).getProjectTree(ids.project);
    await vi.advanceTimersByTimeAsync(375);
    await expect(result).resolves.toEqual(fullTree);
    expect(fetch.requests).toHaveLength(2);
  });

  it("raises a StudioConnectionError, with the fetch error as cause, once retries are spent", async () => {
    const fetch = fakeFetch(connectionReset());
    const error = await client(fetch, { maxRetries: 0 })
      .getProjectTree(ids.project)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioConnectionError);
    expect((error as Error).message).toMatch(/fetch failed \(UND_ERR_SOCKET: other side closed\)/);
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it("survives a fetch that rejects with something that cannot even be printed", async () => {
    const fetch = fakeFetch(() => {
      throw Object.create(null);
    });
    const error = await client(fetch, { maxRetries: 0 })
      .getProjectTree(ids.project)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioConnectionError);
    expect((error as Error).message).toContain("cannot be printed");
  });

  it("lets a call override maxRetries", async () => {
    const fetch = fakeFetch(json({}, { status: 503, headers: noWait }));
    await expect(client(fetch).getProjectTree(ids.project, { maxRetries: 0 })).rejects.toBeInstanceOf(
      StudioServerError,
    );
    expect(fetch.requests).toHaveLength(1);
  });

  it("keeps a text body, and says its type, when an error page is not JSON", async () => {
    const page = "<html><body>502 Bad Gateway</body></html>";
    const fetch = fakeFetch(new Response(page, { status: 502, headers: { "content-type": "text/html" } }));
    const error = await client(fetch, { maxRetries: 0 })
      .getProjectTree(ids.project)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioServerError);
    expect(error).toMatchObject({ body: page });
    expect((error as Error).message).toContain(`(text/html body of ${page.length} characters)`);
  });

  it.each([
    ["malformed JSON", '{"project": ', /not valid JSON \(application\/json\)/],
    ["an empty body", "", /empty body/],
    ["a JSON array", "[]", /a project tree is an object \(got an array of 0 items\)/],
    ["an object without project", "{}", /a project tree has a project object \(got nothing\)/],
  ])(
    "turns a 200 with %s into a StudioError, not a SyntaxError, without retrying",
    async (_, body, message) => {
      const fetch = fakeFetch(
        new Response(body, { status: 200, headers: { "content-type": "application/json" } }),
      );
      const error = await client(fetch)
        .getProjectTree(ids.project)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StudioError);
      expect(error).not.toBeInstanceOf(SyntaxError);
      expect((error as Error).message).toMatch(message);
      expect(fetch.requests).toHaveLength(1);
    },
  );

  it("drops Set-Cookie from the headers kept on an error", async () => {
    const fetch = fakeFetch(json({}, { status: 404, headers: { "set-cookie": "session=abc" } }));
    const error = (await client(fetch)
      .getProjectTree(ids.project)
      .catch((e: unknown) => e)) as StudioApiError;
    expect(error.headers["set-cookie"]).toBeUndefined();
  });

  it("scrubs the token from what the server echoes back", async () => {
    const fetch = fakeFetch(
      json(
        { message: `token ${token} is revoked` },
        { status: 401, headers: { "www-authenticate": `Bearer ${token}` } },
      ),
    );
    const error = (await client(fetch)
      .getProjectTree(ids.project)
      .catch((e: unknown) => e)) as StudioApiError;
    expect(error.body).toEqual({ message: "token [redacted] is revoked" });
    expect(error.headers["www-authenticate"]).toBe("Bearer [redacted]");
    expect(error.message).toContain("token [redacted] is revoked");
    expect(JSON.stringify(error)).not.toContain(token);
  });

  it("serialises an error to JSON with its name, message and fields", async () => {
    const fetch = fakeFetch(json({ message: "gone" }, { status: 404 }));
    const error = await client(fetch)
      .getProjectTree(ids.project)
      .catch((e: unknown) => e);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({
      name: "StudioNotFoundError",
      message: expect.stringContaining("answered 404"),
      status: 404,
      body: { message: "gone" },
    });
  });
});

describe("backoff and Retry-After (fake timers)", () => {
  it("waits about 0.5 s, then 1 s, between attempts", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0);
    vi.useFakeTimers();
    const fetch = fakeFetch(json({}, { status: 500 }));
    const result = client(fetch)
      .getProjectTree(ids.project)
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(499);
    expect(fetch.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch.requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(999);
    expect(fetch.requests).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch.requests).toHaveLength(3);
    await expect(result).resolves.toBeInstanceOf(StudioServerError);
  });

  it.each([
    ["Retry-After in seconds", { "retry-after": "3" }, 3_000],
    [
      "Retry-After as an HTTP date",
      { "retry-after": new Date(Date.UTC(2030, 0, 1, 0, 0, 2)).toUTCString() },
      2_000,
    ],
    ["retry-after-ms", { "retry-after-ms": "1500" }, 1_500],
  ])("honours %s", async (_, headers, wait) => {
    vi.useFakeTimers({ now: Date.UTC(2030, 0, 1) });
    const fetch = fakeFetch(json({}, { status: 429, headers }), json(fullTree));
    const result = client(fetch).getProjectTree(ids.project);
    await vi.advanceTimersByTimeAsync(wait - 1);
    expect(fetch.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toEqual(fullTree);
  });

  it("does not retry when the server asks for more than a minute, and says how long it asked", async () => {
    const fetch = fakeFetch(json({}, { status: 429, headers: { "retry-after": "120" } }));
    const error = await client(fetch)
      .getProjectTree(ids.project)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioRateLimitError);
    expect(error).toMatchObject({ retryAfterMs: 120_000 });
    expect(fetch.requests).toHaveLength(1);
  });
});

describe("timeouts and cancellation", () => {
  it("times out each attempt and retries it", async () => {
    const fetch = hangingFetch();
    const error = await client(fetch, { timeoutMs: 10, maxRetries: 1 })
      .getProjectTree(ids.project)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StudioTimeoutError);
    expect(error).toMatchObject({ timeoutMs: 10, message: expect.stringContaining("attempt 2") });
    expect(fetch.requests).toHaveLength(2);
  });

  it("does not send anything when the signal is already aborted", async () => {
    const fetch = fakeFetch(json(fullTree));
    const reason = new Error("stop");
    await expect(
      client(fetch).getProjectTree(ids.project, { signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    expect(fetch.requests).toHaveLength(0);
  });

  it("cancels a request in flight with the signal's reason, without retrying", async () => {
    const fetch = hangingFetch();
    const controller = new AbortController();
    const result = client(fetch).getProjectTree(ids.project, { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await expect(result).rejects.toMatchObject({ name: "AbortError" });
    expect(fetch.requests).toHaveLength(1);
  });

  it("cancels the wait between retries at once", async () => {
    vi.useFakeTimers();
    const fetch = fakeFetch(json({}, { status: 503 }));
    const controller = new AbortController();
    const result = client(fetch)
      .getProjectTree(ids.project, { signal: controller.signal })
      .catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(new Error("user left"));
    await expect(result).resolves.toHaveProperty("message", "user left");
    expect(fetch.requests).toHaveLength(1);
  });
});

describe("logger", () => {
  it("gets one entry per attempt, with a redacted Authorization", async () => {
    const entries: StudioRequestLog[] = [];
    const fetch = fakeFetch(json({}, { status: 503, headers: noWait }), json(fullTree));
    await client(fetch, { logger: (entry) => entries.push(entry) }).getProjectTree(ids.project);
    expect(entries).toEqual([
      expect.objectContaining({
        method: "GET",
        path: `/api/v1/public/projects/${ids.project}`,
        attempt: 1,
        status: 503,
        outcome: "http-error",
        retryInMs: 0,
        authorization: "Bearer [redacted]",
        durationMs: expect.any(Number),
      }),
      expect.objectContaining({ attempt: 2, status: 200, outcome: "ok", retryInMs: undefined }),
    ]);
    expect(JSON.stringify(entries)).not.toContain(token);
  });

  it("cannot break a request by throwing", async () => {
    const logger = () => {
      throw new Error("disk full");
    };
    await expect(client(fakeFetch(json(fullTree)), { logger }).getProjectTree(ids.project)).resolves.toEqual(
      fullTree,
    );
  });
});
