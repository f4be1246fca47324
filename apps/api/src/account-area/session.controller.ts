import {
  accountOperations,
  type RedeemLinkRequest,
  type Session,
  type SignInRequest,
  type SignUpRequest,
  type WebAreaSettings,
} from "@imagehub/domain";
import { Body, Controller, Ip, Res } from "@nestjs/common";
import type { FastifyReply } from "fastify";
import { CurrentSignIn } from "../common/api-key.guard.js";
import { Endpoint } from "../common/endpoint.decorator.js";
import { SessionsService, type SignedIn, type WithCookie } from "./sessions.service.js";

/** Signing in and out of the web area. */
@Controller()
export class SessionController {
  constructor(private readonly sessions: SessionsService) {}

  @Endpoint(accountOperations.webAreaSettings)
  settings(): WebAreaSettings {
    return this.sessions.settings();
  }

  @Endpoint(accountOperations.signIn)
  signIn(
    @Body() request: SignInRequest,
    @Ip() address: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Session> {
    return withCookie(reply, this.sessions.signIn(request, address));
  }

  @Endpoint(accountOperations.signUp)
  signUp(@Body() request: SignUpRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<Session> {
    return withCookie(reply, this.sessions.signUp(request));
  }

  @Endpoint(accountOperations.redeemLink)
  redeemLink(
    @Body() request: RedeemLinkRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Session> {
    return withCookie(reply, this.sessions.redeemLink(request));
  }

  @Endpoint(accountOperations.getSession)
  session(@CurrentSignIn() signedIn: SignedIn): Session {
    return this.sessions.describe(signedIn);
  }

  @Endpoint(accountOperations.signOut)
  signOut(
    @CurrentSignIn() signedIn: SignedIn,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    return withCookie(reply, this.sessions.signOut(signedIn));
  }

  @Endpoint(accountOperations.signOutEverywhere)
  signOutEverywhere(
    @CurrentSignIn() signedIn: SignedIn,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<void> {
    return withCookie(reply, this.sessions.signOutEverywhere(signedIn));
  }
}

async function withCookie<T>(reply: FastifyReply, answer: Promise<WithCookie<T>>): Promise<T> {
  const { body, cookie } = await answer;
  void reply.header("set-cookie", cookie).header("cache-control", "no-store");
  return body;
}
