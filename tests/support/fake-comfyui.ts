import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import { closeServer } from "./close-server.js";
import { entryOf, isOutput, refusalOf, type Workflow } from "./fake-comfyui-workflow.js";
import { type Colour, fakePicture, meanColour, RED } from "./fake-pictures.js";
import { type FakeRequest, gate, readFakeRequest } from "./fake-service.js";

export const CHECKPOINTS = ["sd_xl_base_1.0.safetensors", "flux1-schnell-fp8.safetensors"];
export const SAMPLERS = ["euler", "euler_ancestral", "dpmpp_2m", "dpmpp_2m_sde"];

/** A failure during execution, as execution.py reports one (`execution_error`). */
export interface ExecutionFailure {
  nodeId: string;
  nodeType: string;
  exceptionType: string;
  exceptionMessage: string;
}

/** ComfyUI's words when the GPU runs out of memory in a sampler (execution.py adds the tips). */
export const OUT_OF_MEMORY: ExecutionFailure = {
  nodeId: "3",
  nodeType: "KSampler",
  exceptionType: "torch.OutOfMemoryError",
  exceptionMessage:
    "Allocation on device \nThis error means you ran out of memory on your GPU.\n\nTIPS: If the workflow worked before you might have accidentally set the batch_size to a large number.",
};

interface QueuedPrompt {
  id: string;
  number: number;
  workflow: Workflow;
  clientId: string | undefined;
  state: "queued" | "running" | "success" | "error" | "interrupted";
  outputs: Record<string, { images: { filename: string; subfolder: string; type: string }[] }>;
  interrupt: () => void;
}

/**
 * ComfyUI's server on 127.0.0.1, in its own shapes: `POST /prompt` validated as validate_prompt does (400
 * with `error` and `node_errors`: unknown checkpoints, samplers, uploaded images, inputs that do not
 * convert), one prompt executed at a time in queue order with the websocket messages of execution.py
 * (execution_start, execution_cached, executing, progress per sampler step, executed, execution_success,
 * execution_error, execution_interrupted) sent to the prompt's client_id, `/history/{id}`, `/view` serving
 * the PNGs it saved (the size and batch asked for; from an image prompt, in its colour), `/upload/image`,
 * `POST /queue` (delete) and `POST /interrupt`. Tests hold a run at a step, fail the next one, or keep the
 * queue busy.
 */
export class FakeComfyUi {
  readonly requests: FakeRequest[] = [];
  readonly prompts = new Map<string, QueuedPrompt>();
  /** Prompts taken off the queue by `POST /queue` before they started. */
  readonly removedFromQueue: string[] = [];
  /** The checkpoint files and samplers the server has; tests take some away. */
  checkpoints = [...CHECKPOINTS];
  samplers = [...SAMPLERS];
  private server: Server | undefined;
  private sockets = new Map<string, Set<WebSocket>>();
  private readonly uploads = new Map<string, Buffer>();
  private readonly files = new Map<string, Buffer>();
  private number = 0;
  private running: QueuedPrompt | undefined;
  private nextFailure: ExecutionFailure | undefined;
  private hold: { step: number; opened: Promise<void>; open(): void; reached(): void } | undefined;
  /** While busy, no prompt starts: another client's long run holds the GPU. */
  private isBusy = false;

  get url(): string {
    const address = this.server?.address() as AddressInfo | undefined;
    if (!address) throw new Error("the fake ComfyUI is not started");
    return `http://127.0.0.1:${address.port}`;
  }

  requestsTo(method: string, path: string): FakeRequest[] {
    return this.requests.filter(
      (request) => request.method === method && request.path.split("?")[0] === path,
    );
  }

  /** The next run fails at its sampler with `failure`. */
  failNextRun(failure: ExecutionFailure): void {
    this.nextFailure = failure;
  }

  /**
   * The next run stops after sending the progress of `step`, until `release` is called or it is
   * interrupted; `reached` settles once it is there.
   */
  holdAtStep(step: number): { reached: Promise<void>; release(): void } {
    const opening = gate();
    const reaching = gate();
    this.hold = { step, opened: opening.opened, open: opening.open, reached: reaching.open };
    return { reached: reaching.opened, release: opening.open };
  }

  /** Busy, no prompt starts (another client's long run holds the GPU); no longer, the queue moves on. */
  setBusy(isBusy: boolean): void {
    this.isBusy = isBusy;
    if (!isBusy) setImmediate(() => void this.runNext());
  }

  async start(): Promise<this> {
    const server = createServer((incoming, response) => {
      this.handle(incoming, response).catch((error: Error) => {
        response.writeHead(500, { "content-type": "text/plain" }).end(error.message);
      });
    });
    const sockets = new WebSocketServer({ noServer: true });
    server.on("upgrade", (incoming, socket, head) => {
      const url = new URL(incoming.url ?? "/", "http://fake");
      if (url.pathname !== "/ws") return void socket.destroy();
      sockets.handleUpgrade(incoming, socket, head, (ws) => {
        const clientId = url.searchParams.get("clientId") ?? randomUUID().replace(/-/g, "");
        const set = this.sockets.get(clientId) ?? new Set();
        set.add(ws);
        this.sockets.set(clientId, set);
        ws.on("close", () => set.delete(ws));
        this.sendTo(clientId, "status", {
          status: { exec_info: { queue_remaining: this.remaining() } },
          sid: clientId,
        });
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    for (const set of this.sockets.values()) for (const ws of set) ws.terminate();
    const server = this.server;
    this.server = undefined;
    this.hold?.open();
    if (server) await closeServer(server);
  }

  private async handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const recorded = await readFakeRequest(incoming);
    this.requests.push(recorded);
    const url = new URL(recorded.path, "http://fake");
    const json = (status: number, body: unknown) =>
      void response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    const route = `${recorded.method} ${url.pathname}`;
    if (route === "POST /prompt") {
      const answer = await this.queuePrompt(recorded.body as { prompt?: Workflow; client_id?: string });
      return json(answer.status, answer.body);
    }
    if (route === "POST /upload/image") {
      const image = recorded.form?.get("image");
      if (!(image instanceof Blob)) return void response.writeHead(400).end();
      const name = (image as File).name || "image.png";
      const subfolder = String(recorded.form?.get("subfolder") ?? "");
      this.uploads.set(subfolder ? `${subfolder}/${name}` : name, Buffer.from(await image.arrayBuffer()));
      return json(200, { name, subfolder, type: String(recorded.form?.get("type") ?? "input") });
    }
    if (recorded.method === "GET" && url.pathname.startsWith("/history/")) {
      const id = decodeURIComponent(url.pathname.slice("/history/".length));
      const prompt = this.prompts.get(id);
      if (!prompt || prompt.state === "queued" || prompt.state === "running") return json(200, {});
      return json(200, { [id]: historyOf(prompt) });
    }
    if (route === "GET /view") {
      const file = this.files.get(`${url.searchParams.get("type")}/${url.searchParams.get("filename")}`);
      if (!file) return void response.writeHead(404).end();
      return void response.writeHead(200, { "content-type": "image/png" }).end(file);
    }
    if (route === "POST /queue") {
      for (const id of (recorded.body as { delete?: string[] }).delete ?? []) {
        const prompt = this.prompts.get(id);
        if (prompt?.state !== "queued") continue;
        this.prompts.delete(id);
        this.removedFromQueue.push(id);
      }
      return void response.writeHead(200).end();
    }
    if (route === "POST /interrupt") {
      const wanted = (recorded.body as { prompt_id?: string } | undefined)?.prompt_id;
      if (this.running && (wanted === undefined || wanted === this.running.id)) this.running.interrupt();
      return void response.writeHead(200).end();
    }
    response.writeHead(404).end();
  }

  private async queuePrompt(body: { prompt?: Workflow; client_id?: string }) {
    if (!body.prompt) return { status: 400, body: { error: "no prompt", node_errors: [] } };
    const refusal = refusalOf(body.prompt, {
      checkpoints: this.checkpoints,
      samplers: this.samplers,
      uploads: this.uploads,
    });
    if (refusal) return { status: 400, body: refusal };
    this.number += 1;
    const prompt: QueuedPrompt = {
      id: randomUUID(),
      number: this.number,
      workflow: body.prompt,
      clientId: body.client_id,
      state: "queued",
      outputs: {},
      interrupt: () => {},
    };
    this.prompts.set(prompt.id, prompt);
    // Executed after the answer, by the prompt worker thread.
    setImmediate(() => void this.runNext());
    return { status: 200, body: { prompt_id: prompt.id, number: prompt.number, node_errors: {} } };
  }

  private remaining(): number {
    return [...this.prompts.values()].filter(
      (prompt) => prompt.state === "queued" || prompt.state === "running",
    ).length;
  }

  private async runNext(): Promise<void> {
    if (this.running || this.isBusy) return;
    const next = [...this.prompts.values()]
      .filter((prompt) => prompt.state === "queued")
      .sort((a, b) => a.number - b.number)[0];
    if (!next) return;
    this.running = next;
    next.state = "running";
    try {
      await this.execute(next);
    } finally {
      this.running = undefined;
      setImmediate(() => void this.runNext());
    }
  }

  /** As execution.py runs a prompt: its messages to the prompt's client, its images saved. */
  private async execute(prompt: QueuedPrompt): Promise<void> {
    const send = (type: string, data: Record<string, unknown>) =>
      this.sendTo(prompt.clientId, type, { ...data, prompt_id: prompt.id });
    let isInterrupted = false;
    const interrupted = gate();
    prompt.interrupt = () => {
      isInterrupted = true;
      interrupted.open();
    };
    send("execution_start", { timestamp: Date.now() });
    send("execution_cached", { nodes: [], timestamp: Date.now() });
    const [samplerId, sampler] = entryOf(prompt.workflow, "KSampler");
    const steps = Number(sampler?.inputs.steps ?? 20);
    for (const [id, node] of Object.entries(prompt.workflow)) {
      send("executing", { node: id, display_node: id });
      if (node.class_type !== "KSampler") continue;
      const failure = this.nextFailure;
      if (failure) {
        this.nextFailure = undefined;
        prompt.state = "error";
        send("execution_error", {
          node_id: failure.nodeId,
          node_type: failure.nodeType,
          executed: [],
          exception_message: failure.exceptionMessage,
          exception_type: failure.exceptionType,
          traceback: ['  File "/ComfyUI/execution.py", line 496, in execute\n'],
          current_inputs: {},
          current_outputs: {},
          timestamp: Date.now(),
        });
        return;
      }
      for (let step = 1; step <= steps; step += 1) {
        send("progress", { value: step, max: steps, node: samplerId });
        const hold = this.hold;
        if (hold?.step === step) {
          this.hold = undefined;
          hold.reached();
          await Promise.race([hold.opened, interrupted.opened]);
        }
        if (isInterrupted) {
          prompt.state = "interrupted";
          send("execution_interrupted", {
            node_id: samplerId,
            node_type: "KSampler",
            executed: [],
            timestamp: Date.now(),
          });
          return;
        }
      }
    }
    for (const [id, node] of Object.entries(prompt.workflow)) {
      if (!isOutput(node)) continue;
      const images = await this.save(prompt.workflow, node.class_type === "SaveImage" ? "output" : "temp");
      prompt.outputs[id] = { images };
      send("executed", { node: id, display_node: id, output: { images } });
    }
    prompt.state = "success";
    send("execution_success", { timestamp: Date.now() });
    this.sendTo(prompt.clientId, "executing", { node: null, prompt_id: prompt.id });
  }

  /** The batch's PNGs: the size and count the latent says; from an image prompt, in its colour. */
  private async save(workflow: Workflow, type: string) {
    const [, empty] = entryOf(workflow, "EmptyLatentImage");
    const [, scale] = entryOf(workflow, "ImageScale");
    const [, repeat] = entryOf(workflow, "RepeatLatentBatch");
    const [, load] = entryOf(workflow, "LoadImage");
    const size = empty ?? scale;
    const width = Number(size?.inputs.width ?? 512);
    const height = Number(size?.inputs.height ?? 512);
    const count = Number(empty?.inputs.batch_size ?? repeat?.inputs.amount ?? 1);
    const upload = load && this.uploads.get(String(load.inputs.image));
    const colour: Colour = upload ? await meanColour(upload) : RED;
    const picture = await fakePicture(width, height, { colour });
    return Array.from({ length: count }, () => {
      const filename = `imagehub_${String(this.files.size + 1).padStart(5, "0")}_.png`;
      this.files.set(`${type}/${filename}`, picture);
      return { filename, subfolder: "", type };
    });
  }

  private sendTo(clientId: string | undefined, type: string, data: Record<string, unknown>): void {
    const text = JSON.stringify({ type, data });
    const targets =
      clientId === undefined
        ? [...this.sockets.values()].flatMap((set) => [...set])
        : [...(this.sockets.get(clientId) ?? [])];
    for (const ws of targets) ws.send(text);
  }
}

function historyOf(prompt: QueuedPrompt) {
  const isSuccess = prompt.state === "success";
  return {
    prompt: [
      prompt.number,
      prompt.id,
      prompt.workflow,
      { client_id: prompt.clientId },
      Object.keys(prompt.outputs),
    ],
    outputs: prompt.outputs,
    status: {
      status_str: isSuccess ? "success" : "error",
      completed: isSuccess,
      messages: [["execution_start", { prompt_id: prompt.id, timestamp: Date.now() }]],
    },
    meta: {},
  };
}

export function startFakeComfyUi(): Promise<FakeComfyUi> {
  return new FakeComfyUi().start();
}
