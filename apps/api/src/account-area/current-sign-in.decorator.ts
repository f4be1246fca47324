import { createParamDecorator, type ExecutionContext, InternalServerErrorException } from "@nestjs/common";
import type { RequestWithCaller } from "../accounts/current-caller.decorator.js";
import type { SignedIn } from "./sessions.service.js";

/** A request of the web area once authenticated by its session cookie. */
export type RequestWithSignIn = RequestWithCaller & { signedIn?: SignedIn };

/** The session of a web-area request (routes whose operation's auth is "session" or "admin"). */
export const CurrentSignIn = createParamDecorator((_: unknown, context: ExecutionContext): SignedIn => {
  const signedIn = context.switchToHttp().getRequest<RequestWithSignIn>().signedIn;
  if (!signedIn) throw new InternalServerErrorException("no session on this route");
  return signedIn;
});
