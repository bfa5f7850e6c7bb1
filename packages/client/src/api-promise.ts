/** A successful answer with what came with it: the parsed result, the server's request id, the HTTP response. */
export interface WithResponse<T> {
  /** The parsed result, what awaiting the call gives. */
  data: T;
  /** The answer's `X-Request-Id`: quote it to support, or find the request in the gateway's logs. */
  requestId: string | undefined;
  /** The last attempt's HTTP response (its body already read): status and headers. */
  response: Response;
}

/**
 * What every SDK method returns: a Promise of the parsed result (`await client.projects.get(id)`)
 * that also offers `.withResponse()`, the same answer with its request id and HTTP response, as
 * OpenAI's TypeScript SDK does (its `APIPromise`). One request either way: both read the same answer.
 */
export class ApiPromise<T> extends Promise<T> {
  readonly #answer: Promise<WithResponse<T>>;
  #data: Promise<T> | undefined;

  constructor(answer: Promise<WithResponse<T>>) {
    super((resolve) => resolve(undefined as T));
    this.#answer = answer;
  }

  /** Derived promises (`then`, `catch`, `finally`) are plain Promises. */
  static override get [Symbol.species]() {
    return Promise;
  }

  /** The answer with its request id and HTTP response: `const { data, requestId } = await client.projects.create(body).withResponse()`. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#answer;
  }

  #result(): Promise<T> {
    return (this.#data ??= this.#answer.then((answer) => answer.data));
  }

  override then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#result().then(onfulfilled, onrejected);
  }

  override catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#result().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#result().finally(onfinally);
  }
}

/** The request id of an answer (the gateway sets `X-Request-Id` on every one). */
export function requestIdOf(response: Response): string | undefined {
  return response.headers.get('x-request-id') ?? undefined;
}
