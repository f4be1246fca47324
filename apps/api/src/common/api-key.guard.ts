import type { Operation } from "@imagehub/domain";
import {
  type CanActivate,
  createParamDecorator,
  type ExecutionContext,
  Injectable,
  InternalServerErrorException,
} from "@nestjs/common";
import { Reflector } from "@nestjs/core";
import type { FastifyRequest } from "fastify";
import { ApiKeyAuthService, type Caller } from "../accounts/api-key-auth.service.js";
import { OPERATION, UNDOCUMENTED_PUBLIC } from "./endpoint.decorator.js";

export type AuthenticatedRequest = FastifyRequest & { caller?: Caller };

/**
 * Authenticates every route by its operation's `auth`: only the `api-key` header counts. A handler that
 * is neither an operation nor marked public is refused, so a route can't be left open by mistake.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: ApiKeyAuthService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const handler = context.getHandler();
    if (this.reflector.getAllAndOverride<boolean>(UNDOCUMENTED_PUBLIC, [handler, context.getClass()]))
      return true;
    const operation = this.reflector.get<Operation | undefined>(OPERATION, handler);
    if (!operation) throw new InternalServerErrorException(`route ${handler.name} declares no operation`);
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const key = request.headers["api-key"];
    const presentedKey = Array.isArray(key) ? key[0] : key;
    if (operation.auth === "required" || (operation.auth === "optional" && presentedKey)) {
      request.caller = await this.auth.authenticate(presentedKey);
    }
    return true;
  }
}

/** The authenticated account and key of the request (routes whose operation requires a key). */
export const CurrentCaller = createParamDecorator((_: unknown, context: ExecutionContext): Caller => {
  const caller = context.switchToHttp().getRequest<AuthenticatedRequest>().caller;
  if (!caller) throw new InternalServerErrorException("no authenticated caller on this route");
  return caller;
});

/** The caller on routes whose key is optional: undefined when the request sent none. */
export const OptionalCaller = createParamDecorator(
  (_: unknown, context: ExecutionContext): Caller | undefined =>
    context.switchToHttp().getRequest<AuthenticatedRequest>().caller,
);
