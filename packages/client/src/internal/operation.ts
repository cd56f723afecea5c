// An operation's request and answer, typed from the contract's `paths` the way openapi-fetch types its own
// calls (its ParamsOption, RequestBodyOption and FetchResponse): a path the contract lacks, a method the path
// does not take, a wrong path parameter or body, and the wrong answer type do not compile.
import type {
  Client,
  ClientPathsWithMethod,
  FetchResponse,
  ParamsOption,
  RequestBodyOption,
} from "openapi-fetch";
import type { Broken } from "./exchange.js";

export type Method = "GET" | "POST" | "PUT";

/** The contract's paths that take `method` (openapi-fetch's PathsWithMethod). */
export type PathOf<Paths extends {}, M extends Method> = ClientPathsWithMethod<Client<Paths>, Lowercase<M>> &
  string;

/** The contract's declaration of `method` on `path`: its parameters, body and answers. */
export type OperationOf<Paths extends {}, M extends Method, P extends PathOf<Paths, M>> = Paths[P] extends {
  [K in Lowercase<M>]: infer Declared;
}
  ? Declared
  : never;

/**
 * One operation's request, in openapi-fetch's words: `params.path` fills each `{name}` of the path (encoded),
 * `body` is sent as JSON, each required when the contract requires it and refused when it has none.
 */
export type Operation<Paths extends {}, M extends Method, P extends PathOf<Paths, M>> = {
  readonly method: M;
  /** The contract's path, as it writes it. */
  readonly path: P;
  /** This route's own headers (the chat key goes to the `/v1` routes only). */
  readonly headers?: Readonly<Record<string, string>>;
} & ParamsOption<OperationOf<Paths, M, P>> &
  RequestBodyOption<OperationOf<Paths, M, P>> & {
    // The core fills the path only: a query the contract may add one day must not compile until it sends it.
    readonly params?: { readonly query?: never };
  };

/** An operation whose 2xx answer is JSON; `check` names what breaks the contract in it. */
export type JsonOperation<Paths extends {}, M extends Method, P extends PathOf<Paths, M>> = Operation<
  Paths,
  M,
  P
> & {
  readonly check?: (data: unknown) => Broken | undefined;
};

/** The contract's JSON 2xx answer to the operation. */
export type JsonAnswer<Paths extends {}, M extends Method, P extends PathOf<Paths, M>> = NonNullable<
  FetchResponse<OperationOf<Paths, M, P> & {}, Record<string, never>, "application/json">["data"]
>;

/** Any operation, as the core reads it at run time. */
export interface AnyOperation {
  readonly method: Method;
  readonly path: string;
  readonly params?: { readonly path?: Readonly<Record<string, unknown>> };
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly check?: (data: unknown) => Broken | undefined;
}
