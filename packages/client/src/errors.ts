import type { ErrorBody } from "@imagehub/domain";

/** Every error the client throws. */
export class ImagehubError extends Error {
  override name = "ImagehubError";
}

/**
 * The API answered with an error status. `body` is the interface's error body (`statusCode`, `error`,
 * `message[]`); the Error's own message joins its messages.
 */
export class ApiError extends ImagehubError {
  override name = "ApiError";
  readonly statusCode: number;
  readonly error: string;
  /** What was wrong, one entry per problem: the body's `message`. */
  readonly messages: string[];

  constructor(
    readonly body: ErrorBody,
    readonly operationId: string,
  ) {
    super(`${body.statusCode} ${body.error}: ${body.message.join("; ")}`);
    this.statusCode = body.statusCode;
    this.error = body.error;
    this.messages = body.message;
  }
}

/** No answer came: the connection failed or was cut. */
export class NetworkError extends ImagehubError {
  override name = "NetworkError";
}

/** No answer came within the client's time limit. */
export class TimeoutError extends ImagehubError {
  override name = "TimeoutError";
}

/** The API answered 2xx with a body that does not match the interface (another version, or a proxy). */
export class UnexpectedResponseError extends ImagehubError {
  override name = "UnexpectedResponseError";
}
