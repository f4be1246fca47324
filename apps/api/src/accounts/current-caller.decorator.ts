import { createParamDecorator, type ExecutionContext, InternalServerErrorException } from "@nestjs/common";
import type { FastifyRequest } from "fastify";
import type { Caller } from "./api-key-auth.service.js";

/** A request once authenticated: its caller, when its key or session named one. */
export type RequestWithCaller = FastifyRequest & { caller?: Caller };

/** The authenticated account and key of the request (routes whose operation requires a key). */
export const CurrentCaller = createParamDecorator((_: unknown, context: ExecutionContext): Caller => {
  const caller = context.switchToHttp().getRequest<RequestWithCaller>().caller;
  if (!caller) throw new InternalServerErrorException("no authenticated caller on this route");
  return caller;
});

/** The caller on routes whose key is optional: undefined when the request sent none. */
export const OptionalCaller = createParamDecorator(
  (_: unknown, context: ExecutionContext): Caller | undefined =>
    context.switchToHttp().getRequest<RequestWithCaller>().caller,
);
