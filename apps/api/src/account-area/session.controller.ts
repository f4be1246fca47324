import {
  type AccountSessionList,
  accountOperations,
  type ChangePasswordRequest,
  type ForgotPasswordRequest,
  type RedeemLinkRequest,
  type Session,
  type SignInRequest,
  type SignUpRequest,
  type WebAreaSettings,
} from "@imagehub/domain";
import { Body, Controller, Headers, Ip, Param, Res } from "@nestjs/common";
import type { FastifyReply } from "fastify";
import { Endpoint } from "../common/endpoint.decorator.js";
import { AccountPasswordsService } from "./account-passwords.service.js";
import { CurrentSignIn } from "./current-sign-in.decorator.js";
import { SessionsService, type SignedIn, type WithCookie } from "./sessions.service.js";

/** Signing in and out of the web area. */
@Controller()
export class SessionController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly passwords: AccountPasswordsService,
  ) {}

  @Endpoint(accountOperations.webAreaSettings)
  settings(): WebAreaSettings {
    return this.sessions.settings();
  }

  @Endpoint(accountOperations.signIn)
  signIn(
    @Body() request: SignInRequest,
    @Ip() address: string,
    @Headers("user-agent") userAgent: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Session> {
    return withCookie(reply, this.sessions.signIn(request, address, userAgent));
  }

  @Endpoint(accountOperations.signUp)
  signUp(
    @Body() request: SignUpRequest,
    @Headers("user-agent") userAgent: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Session> {
    return withCookie(reply, this.sessions.signUp(request, userAgent));
  }

  @Endpoint(accountOperations.redeemLink)
  redeemLink(
    @Body() request: RedeemLinkRequest,
    @Headers("user-agent") userAgent: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Session> {
    return withCookie(reply, this.sessions.redeemLink(request, userAgent));
  }

  @Endpoint(accountOperations.forgotPassword)
  forgotPassword(@Body() request: ForgotPasswordRequest, @Ip() address: string): Promise<void> {
    return this.passwords.forgot(request, address);
  }

  @Endpoint(accountOperations.changePassword)
  changePassword(@CurrentSignIn() signedIn: SignedIn, @Body() request: ChangePasswordRequest): Promise<void> {
    return this.passwords.change(signedIn, request);
  }

  @Endpoint(accountOperations.listSessions)
  listSessions(@CurrentSignIn() signedIn: SignedIn): Promise<AccountSessionList> {
    return this.sessions.list(signedIn);
  }

  @Endpoint(accountOperations.endSession)
  endSession(@CurrentSignIn() signedIn: SignedIn, @Param("sessionId") sessionId: string): Promise<void> {
    return this.sessions.end(signedIn, sessionId);
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
