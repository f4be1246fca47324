import { ConflictException, ForbiddenException, NotFoundException } from "@nestjs/common";
import { describe, expect, it } from "vitest";
import {
  Conflict,
  Forbidden,
  Gone,
  InvalidRequest,
  NotAuthenticated,
  NotEnoughCredits,
  NotFound,
  TooManyAttempts,
  Unavailable,
} from "./domain-errors.js";
import { refusalBodyOf, retryAfterOf } from "./error-body.js";

describe("refusalBodyOf", () => {
  it("answers a domain Conflict as a Nest ConflictException with the same message would be", () => {
    const message = "webhook 1 is disabled: enable it first";
    expect(refusalBodyOf(new Conflict(message))).toEqual(refusalBodyOf(new ConflictException(message)));
    expect(refusalBodyOf(new Conflict(message))).toEqual({
      statusCode: 409,
      error: "Conflict",
      message: [message],
    });
  });

  it("answers an InvalidRequest 400 with each of its messages", () => {
    expect(refusalBodyOf(new InvalidRequest(["prompt: one", "prompt: two"]))).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: ["prompt: one", "prompt: two"],
    });
  });

  it("answers NotEnoughCredits 402", () => {
    expect(refusalBodyOf(new NotEnoughCredits("f_images", 2, 1))?.statusCode).toBe(402);
  });

  it.each([
    [new NotAuthenticated("sign in first"), 401, "Unauthorized"],
    [new Forbidden("admins only"), 403, "Forbidden"],
    [new NotFound("no image with id x"), 404, "Not Found"],
    [new Gone("this link is unknown, already used or expired; ask for a new one"), 410, "Gone"],
    [new TooManyAttempts("too many attempts; try again in 3 s", 3), 429, "Too Many Requests"],
    [new Unavailable("stopping: send requests elsewhere"), 503, "Service Unavailable"],
  ])("answers %o with its status", (error, statusCode, name) => {
    expect(refusalBodyOf(error)).toEqual({ statusCode, error: name, message: [error.message] });
  });

  it("asks a client refused for too many attempts to wait", () => {
    expect(retryAfterOf(new TooManyAttempts("too many attempts; try again in 3 s", 3))).toBe(3);
    expect(retryAfterOf(new NotFound("no image with id x"))).toBeUndefined();
  });

  it("answers NotFound 404 and Forbidden 403 as Nest's exceptions with the same message would be", () => {
    expect(refusalBodyOf(new NotFound("no generation with id 1"))).toEqual(
      refusalBodyOf(new NotFoundException("no generation with id 1")),
    );
    expect(refusalBodyOf(new Forbidden("dedicated plan only"))).toEqual(
      refusalBodyOf(new ForbiddenException("dedicated plan only")),
    );
  });

  it("answers NotEnoughCredits with the message the service gave it", () => {
    expect(refusalBodyOf(new NotEnoughCredits("f_images", 1, 0, "no credit left"))?.message).toEqual([
      "no credit left",
    ]);
  });

  it("leaves anything else to the caller: it is no refusal", () => {
    expect(refusalBodyOf(new Error("connection reset"))).toBeUndefined();
  });
});
