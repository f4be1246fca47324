import { connect } from "node:net";

/**
 * One request on a connection of its own, answering how it ended: "answered", "refused" (connection
 * refused: nothing was sent), "closed unanswered", or the socket's error code (ECONNRESET: the request was
 * sent and the server reset it).
 */
export function requestOnFreshConnection(port: number, apiKey: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("connect", () =>
      socket.write(`GET /v1/credit HTTP/1.1\r\nhost: localhost\r\napi-key: ${apiKey}\r\n\r\n`),
    );
    socket.on("data", (chunk) => {
      received += chunk;
      if (/^HTTP\/1\.1 \d{3} /.test(received)) {
        socket.destroy();
        resolve("answered");
      }
    });
    socket.on("error", (error: NodeJS.ErrnoException) =>
      resolve(error.code === "ECONNREFUSED" ? "refused" : (error.code ?? error.message)),
    );
    socket.on("close", () => resolve(received === "" ? "closed unanswered" : "answered"));
  });
}
