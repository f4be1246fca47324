import { isReadOnly, type Operation } from "@imagehub/domain";
import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Injectable,
  InternalServerErrorException,
  UnauthorizedException,
  UnsupportedMediaTypeException,
} from "@nestjs/common";
import { Reflector } from "@nestjs/core";
import type { RequestWithSignIn } from "../account-area/current-sign-in.decorator.js";
import { readCookie, SESSION_COOKIE } from "../account-area/session-cookie.js";
import { SessionsService, type SignedIn } from "../account-area/sessions.service.js";
import { ApiKeyAuthService } from "../accounts/api-key-auth.service.js";
import { OPERATION, UNDOCUMENTED_PUBLIC } from "../common/endpoint.decorator.js";

const READ_METHODS = new Set(["GET", "HEAD"]);

/**
 * Authenticates every route by its operation's `auth`: the `api-key` header on /v1, the session cookie (and
 * its CSRF token on every state change) on the web area's /account routes. A handler that is neither an
 * operation nor marked public is refused, so a route can't be left open by mistake.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: ApiKeyAuthService,
    private readonly sessions: SessionsService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const handler = context.getHandler();
    if (this.reflector.getAllAndOverride<boolean>(UNDOCUMENTED_PUBLIC, [handler, context.getClass()]))
      return true;
    const operation = this.reflector.get<Operation | undefined>(OPERATION, handler);
    if (!operation) throw new InternalServerErrorException(`route ${handler.name} declares no operation`);
    const request = context.switchToHttp().getRequest<RequestWithSignIn>();
    if (operation.auth === "session" || operation.auth === "admin") {
      request.signedIn = await this.signedIn(request, operation.auth === "admin");
      request.caller = request.signedIn.caller;
      return true;
    }
    if (operation.auth === "signed-out") {
      // A cross-site form can post urlencoded or text bodies without asking, never JSON.
      if (
        !READ_METHODS.has(request.method) &&
        !request.headers["content-type"]?.startsWith("application/json")
      ) {
        throw new UnsupportedMediaTypeException("send the body as application/json");
      }
      return true;
    }
    const key = request.headers["api-key"];
    const presentedKey = Array.isArray(key) ? key[0] : key;
    if (operation.auth === "required" || (operation.auth === "optional" && presentedKey)) {
      request.caller = await this.auth.authenticate(presentedKey, request.ip);
      if (request.caller.apiKey?.scope === "read-only" && !isReadOnly(operation)) {
        throw new ForbiddenException(
          "this API key is read-only: it can search, display and list, not spend or change",
        );
      }
    }
    return true;
  }

  private async signedIn(request: RequestWithSignIn, isAdminOnly: boolean): Promise<SignedIn> {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    const signedIn = token ? await this.sessions.authenticate(token) : undefined;
    if (!signedIn) throw new UnauthorizedException("sign in first");
    const csrfToken = request.headers["x-csrf-token"];
    if (
      !READ_METHODS.has(request.method) &&
      !this.sessions.isCsrfTokenValid(signedIn, Array.isArray(csrfToken) ? csrfToken[0] : csrfToken)
    ) {
      throw new ForbiddenException("x-csrf-token is missing or does not match the session");
    }
    if (isAdminOnly && !signedIn.caller.account.isAdmin) throw new ForbiddenException("admins only");
    return signedIn;
  }
}
