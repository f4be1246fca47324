import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { closeServer } from "./close-server.js";
import { fakePicture, GREEN } from "./fake-pictures.js";

export interface FakePictureHost {
  base: string;
  /** The paths asked for, in order. */
  requested: string[];
  close(): Promise<void>;
}

/**
 * A web server pictures are fetched from, answering as image hosts do when things go wrong too: `/fox.png`
 * a 320 × 240 green PNG, `/page.html` an HTML page, `/moved.png` a redirect, `/huge.png` headers announcing
 * 60 MB (and no body), anything else 404.
 */
export async function startFakePictureHost(): Promise<FakePictureHost> {
  const png = await fakePicture(320, 240, { colour: GREEN });
  const requested: string[] = [];
  const server = createServer((request, response) => {
    requested.push(request.url ?? "");
    if (request.url === "/fox.png") response.writeHead(200, { "content-type": "image/png" }).end(png);
    else if (request.url === "/page.html")
      response.writeHead(200, { "content-type": "text/html" }).end("<p>hi</p>");
    else if (request.url === "/moved.png") response.writeHead(302, { location: "/fox.png" }).end();
    else if (request.url === "/huge.png")
      response
        .writeHead(200, { "content-type": "image/png", "content-length": String(60 * 1024 * 1024) })
        .flushHeaders();
    else response.writeHead(404).end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requested,
    close: () => closeServer(server),
  };
}
