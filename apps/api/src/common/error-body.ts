import { STATUS_CODES } from "node:http";
import type { ErrorBody } from "@imagehub/domain";
import type { HttpException } from "@nestjs/common";

export function errorBody(statusCode: number, message: string | string[]): ErrorBody {
  return {
    statusCode,
    error: STATUS_CODES[statusCode] ?? "Error",
    message: Array.isArray(message) ? message : [message],
  };
}

/** The error body of a Nest HTTP exception: its own message (or messages), else the exception's. */
export function errorBodyOf(exception: HttpException): ErrorBody {
  const response = exception.getResponse();
  const message =
    typeof response === "object" && response !== null && "message" in response
      ? (response as { message: string | string[] }).message
      : exception.message;
  return errorBody(exception.getStatus(), message);
}
