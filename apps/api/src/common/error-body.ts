import { STATUS_CODES } from "node:http";
import type { ErrorBody } from "@imagehub/domain";

export function errorBody(statusCode: number, message: string | string[]): ErrorBody {
  return {
    statusCode,
    error: STATUS_CODES[statusCode] ?? "Error",
    message: Array.isArray(message) ? message : [message],
  };
}
