// An injected fetch for unit tests: answers from a script, one entry per request, and records requests.

export type Step = Response | Error | ((request: Request) => Response | Promise<Response>);

export interface FakeFetch {
  (request: Request): Promise<Response>;
  readonly requests: Request[];
  /** Bodies of the recorded requests, read as text before the request was answered. */
  readonly bodies: (string | undefined)[];
}

/** A fetch that answers request n with `steps[n]` (the last step repeats). */
export function fakeFetch(...steps: Step[]): FakeFetch {
  const requests: Request[] = [];
  const bodies: (string | undefined)[] = [];
  const fn = async (request: Request) => {
    requests.push(request);
    bodies.push(request.body === null ? undefined : await request.clone().text());
    const step = steps[Math.min(requests.length - 1, steps.length - 1)];
    if (step === undefined) throw new Error("fakeFetch: no steps");
    if (step instanceof Error) throw step;
    if (typeof step === "function") return step(request);
    return step.clone();
  };
  return Object.assign(fn, { requests, bodies });
}

export function json(body: unknown, init: ResponseInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status: 200,
    ...init,
    headers: { "content-type": "application/json", ...(init.headers as Record<string, string> | undefined) },
  });
}

/** A fetch error as undici raises it: `TypeError: fetch failed` with the socket error as cause. */
export function connectionReset(): Error {
  const cause = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
  return new TypeError("fetch failed", { cause });
}

/** A fetch that never answers until its request's signal aborts. */
export function hangingFetch(): FakeFetch {
  return fakeFetch(
    (request) =>
      new Promise<Response>((_, reject) => {
        request.signal.addEventListener("abort", () => reject(request.signal.reason), { once: true });
      }),
  );
}

/** A fetch that answers by path: each path has its own script. */
export function routeFetch(routes: Record<string, Step[]>): FakeFetch {
  const scripts = new Map(Object.entries(routes).map(([path, steps]) => [path, fakeFetch(...steps)]));
  return fakeFetch((request) => {
    const script = scripts.get(new URL(request.url).pathname);
    if (!script) return new Response("no route", { status: 599 });
    return script(request);
  });
}
