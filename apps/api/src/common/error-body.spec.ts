import { ConflictException } from "@nestjs/common";
import { describe, expect, it } from "vitest";
import { Conflict, InvalidRequest, NotEnoughCredits } from "./domain-errors.js";
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

  it("leaves anything else to the caller: it is no refusal", () => {
    expect(refusalBodyOf(new Error("connection reset"))).toBeUndefined();
  });
});
