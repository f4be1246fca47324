import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as sent, headers and body, its quoted-printable text decoded. */
  text: string;
}

export interface LocalSmtpServer {
  /** smtp://user:password@127.0.0.1:port, as SMTP_URL takes it. */
  url: string;
  /** The same server with a wrong password: it refuses the sign-in (535). */
  urlWithWrongPassword: string;
  received: ReceivedMail[];
  close(): Promise<void>;
}

const USER = "imagehub";
const PASSWORD = "smtp-secret";

/**
 * A real SMTP server on a local port (the `smtp-server` package, the receiving side of nodemailer's
 * authors), refusing what a mail server refuses: a sign-in with the wrong password (535), and any recipient
 * at `refusedDomain` (550, "mailbox unavailable"). STARTTLS is off, so it takes AUTH in the clear, which
 * only a local server should.
 */
export async function startSmtpServer(refusedDomain = "refused.test"): Promise<LocalSmtpServer> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) return callback(null, { user: USER });
      return callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      if (address.address.endsWith(`@${refusedDomain}`)) {
        return callback(Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 }));
      }
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          text: decodeQuotedPrintable(Buffer.concat(chunks).toString("utf8")),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${USER}:${PASSWORD}@127.0.0.1:${port}`,
    urlWithWrongPassword: `smtp://${USER}:wrong-password@127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function decodeQuotedPrintable(text: string): string {
  return text
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
