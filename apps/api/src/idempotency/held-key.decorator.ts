import { createParamDecorator, type ExecutionContext } from "@nestjs/common";
import type { FastifyRequest } from "fastify";
import type { HeldKey } from "./idempotent-write.js";

/** A request whose `Idempotency-Key` the interceptor claimed for it. */
export type KeyedRequest = FastifyRequest & { heldKey?: HeldKey };

/**
 * The idempotency key the request runs under, for the write that records its answer with it; undefined
 * when the request sent none.
 */
export const HeldIdempotencyKey = createParamDecorator(
  (_: unknown, context: ExecutionContext): HeldKey | undefined =>
    context.switchToHttp().getRequest<KeyedRequest>().heldKey,
);
