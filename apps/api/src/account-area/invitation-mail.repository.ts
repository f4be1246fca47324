import { Inject, Injectable } from "@nestjs/common";
import { createTransport } from "nodemailer";
import { APP_CONFIG, type AppConfig } from "../common/config.js";

export interface InvitationMail {
  to: string;
  link: string;
  expiresAt: Date;
  /** An invitation (the default) or a forgotten password's reset. */
  kind?: "invitation" | "password-reset";
}

/** What became of an invitation's mail: sent, refused by the mail server (with its answer), or no SMTP set. */
export type MailOutcome =
  | { status: "sent"; detail: null }
  | { status: "failed"; detail: string }
  | { status: "not-configured"; detail: null };

/** Invitations and password resets by mail, through the SMTP server SMTP_URL names (nodemailer). */
@Injectable()
export class InvitationMailRepository {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get isConfigured(): boolean {
    return this.config.mail !== undefined;
  }

  /** Never throws: a refused mail is an outcome the admin is shown, the link being valid all the same. */
  async send(mail: InvitationMail): Promise<MailOutcome> {
    const settings = this.config.mail;
    if (!settings) return { status: "not-configured", detail: null };
    const transport = createTransport({
      url: settings.smtpUrl,
      connectionTimeout: settings.timeoutMs,
      greetingTimeout: settings.timeoutMs,
      socketTimeout: settings.timeoutMs,
    });
    try {
      await transport.sendMail({
        from: settings.from,
        to: mail.to,
        subject: mail.kind === "password-reset" ? "Reset your imagehub password" : "Your imagehub account",
        text: mail.kind === "password-reset" ? resetText(mail) : invitationText(mail),
      });
      return { status: "sent", detail: null };
    } catch (error) {
      return { status: "failed", detail: error instanceof Error ? error.message : String(error) };
    } finally {
      transport.close();
    }
  }
}

function invitationText(mail: InvitationMail): string {
  return [
    "Hello,",
    "",
    "An imagehub account is waiting for you. Choose its password here (the link works once):",
    "",
    mail.link,
    "",
    `The link expires on ${mail.expiresAt.toUTCString()}. If you did not expect this mail, ignore it.`,
    "",
  ].join("\n");
}

function resetText(mail: InvitationMail): string {
  return [
    "Hello,",
    "",
    "Someone asked to reset the password of your imagehub account. Choose a new one here (the link works once):",
    "",
    mail.link,
    "",
    `The link expires on ${mail.expiresAt.toUTCString()}. Using it signs your account out everywhere.`,
    "If you did not ask for it, ignore this mail: your password stays as it is.",
    "",
  ].join("\n");
}
