import type { WebSocket } from "undici";
import { z } from "zod";

/** The websocket's messages about one prompt, as ComfyUI's server sends them. */
const MessageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("execution_start"), data: z.object({ prompt_id: z.string() }) }),
  z.object({ type: z.literal("execution_cached"), data: z.object({ prompt_id: z.string() }) }),
  z.object({
    type: z.literal("executing"),
    data: z.object({ prompt_id: z.string().optional(), node: z.string().nullable() }),
  }),
  z.object({
    type: z.literal("progress"),
    data: z.object({ prompt_id: z.string().optional(), value: z.number(), max: z.number().positive() }),
  }),
  z.object({ type: z.literal("execution_success"), data: z.object({ prompt_id: z.string() }) }),
  z.object({
    type: z.literal("execution_error"),
    data: z.object({
      prompt_id: z.string(),
      node_id: z.string().nullish(),
      node_type: z.string().nullish(),
      exception_type: z.string().nullish(),
      exception_message: z.string().nullish(),
    }),
  }),
  z.object({ type: z.literal("execution_interrupted"), data: z.object({ prompt_id: z.string() }) }),
]);
export type Message = z.infer<typeof MessageSchema>;

export type Messages = ReturnType<typeof messagesOf>;

/**
 * The socket's messages, kept from its opening on; `next` gives those about one prompt, one by one, and
 * undefined once the socket closed or `until` is aborted.
 */
export function messagesOf(socket: WebSocket) {
  const waiting: Message[] = [];
  let wake = () => {};
  let isClosed = false;
  socket.addEventListener("message", (event) => {
    // Binary messages are previews of the image being drawn.
    if (typeof event.data !== "string") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(event.data);
    } catch {
      return;
    }
    // status, executed and the other messages say nothing a run needs.
    const message = MessageSchema.safeParse(parsed);
    if (!message.success) return;
    waiting.push(message.data);
    wake();
  });
  socket.addEventListener("close", () => {
    isClosed = true;
    wake();
  });
  return {
    async next(promptId: string, until: AbortSignal): Promise<Message | undefined> {
      for (;;) {
        if (until.aborted) return undefined;
        const message = waiting.shift();
        if (message) {
          const about = message.data.prompt_id;
          if (about === undefined || about === promptId) return message;
          continue;
        }
        if (isClosed) return undefined;
        await new Promise<void>((resolve) => {
          const onAbort = () => resolve();
          wake = () => {
            until.removeEventListener("abort", onAbort);
            resolve();
          };
          until.addEventListener("abort", onAbort, { once: true });
        });
      }
    },
  };
}
