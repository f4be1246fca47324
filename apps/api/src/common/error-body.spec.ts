import { ConflictException, ForbiddenException, NotFoundException } from "@nestjs/common";
import { describe, expect, it } from "vitest";
import { Conflict, Forbidden, InvalidRequest, NotEnoughCredits, NotFound } from "./domain-errors.js";
import { refusalBodyOf } from "./error-body.js";

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
