import { once } from "node:events";
import { type AddressInfo, createServer } from "node:net";

/**
 * A port the system chose on `host` (PORT=0), held until `release`: the configuration is read with it, so that
 * every link the server writes names the port it will listen on, and it is let go just before the server
 * takes it.
 */
export async function holdFreePort(host: string): Promise<{ port: number; release: () => Promise<void> }> {
  const holder = createServer().listen(0, host);
  await once(holder, "listening");
  const { port } = holder.address() as AddressInfo;
  return {
    port,
    release: async () => {
      holder.close();
      await once(holder, "close");
    },
  };
}
