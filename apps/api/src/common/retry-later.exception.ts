import { HttpException } from "@nestjs/common";

/** A refusal the client should try again after a while: the exception filter sends `Retry-After` with it. */
export class RetryLaterException extends HttpException {
  constructor(
    status: number,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message, status);
  }
}
