import {
  RedeemLinkRequestSchema,
  SessionSchema,
  SignInRequestSchema,
  SignUpRequestSchema,
  WebAreaSettingsSchema,
} from "./account-area.schema.js";
import { defineOperation } from "./operation.js";

/** Signing in and out of the web area: all the web app needs before any page of the account. */
export const sessionOperations = {
  webAreaSettings: defineOperation({
    operationId: "webAreaSettings",
    method: "GET",
    path: "/account/settings",
    tag: "Account",
    summary: "What the sign-in page offers",
    auth: "signed-out",
    success: { status: 200, description: "The settings.", schema: WebAreaSettingsSchema },
  }),
  signIn: defineOperation({
    operationId: "signIn",
    method: "POST",
    path: "/account/sign-in",
    tag: "Account",
    summary: "Sign in",
    description:
      "Checks the password and sets the session cookie. Attempts are limited per address; after a few failures for one email, each next attempt for it waits longer (never a lock), whether an account has the email or not.",
    auth: "signed-out",
    body: SignInRequestSchema,
    success: { status: 200, description: "Signed in.", schema: SessionSchema },
    errors: {
      401: "Wrong email or password.",
      429: "Too many attempts from this address, or failures for this email; Retry-After says when to try again.",
    },
  }),
  signUp: defineOperation({
    operationId: "signUp",
    method: "POST",
    path: "/account/sign-up",
    tag: "Account",
    summary: "Open sign-up",
    description: "Creates an account with the starter credits and signs it in, when sign-up is open.",
    auth: "signed-out",
    body: SignUpRequestSchema,
    success: { status: 201, description: "Created and signed in.", schema: SessionSchema },
    errors: { 403: "Sign-up is closed.", 409: "An account with this email exists." },
  }),
  redeemLink: defineOperation({
    operationId: "redeemLink",
    method: "POST",
    path: "/account/links/redeem",
    tag: "Account",
    summary: "Use a one-time link",
    description:
      "Signs in with a one-time link's token; an invitation sets the password given with it. The link is then spent.",
    auth: "signed-out",
    body: RedeemLinkRequestSchema,
    success: { status: 200, description: "Signed in.", schema: SessionSchema },
    errors: { 400: "An invitation needs a password.", 410: "The link is unknown, used or expired." },
  }),
  getSession: defineOperation({
    operationId: "getSession",
    method: "GET",
    path: "/account/session",
    tag: "Account",
    summary: "The signed-in account",
    auth: "session",
    success: { status: 200, description: "The session.", schema: SessionSchema },
  }),
  signOut: defineOperation({
    operationId: "signOut",
    method: "POST",
    path: "/account/sign-out",
    tag: "Account",
    summary: "Sign out",
    auth: "session",
    success: { status: 200, description: "Signed out; the cookie is cleared." },
  }),
  signOutEverywhere: defineOperation({
    operationId: "signOutEverywhere",
    method: "POST",
    path: "/account/sign-out-everywhere",
    tag: "Account",
    summary: "Sign out every session of the account",
    auth: "session",
    success: { status: 200, description: "Every session of the account has ended." },
  }),
} as const;
