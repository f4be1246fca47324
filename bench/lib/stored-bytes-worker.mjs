// A worker process (what ROLE=worker runs) whose image engine hands back 4 JPEGs rendered once at start-up:
// bench:generations runs it to measure the platform's own cost per generation, rendering aside.
import "reflect-metadata";
import { Test } from "@nestjs/testing";
import { openResources } from "../../apps/api/dist/app.factory.js";
import { AppModule } from "../../apps/api/dist/app.module.js";
import { loadConfig } from "../../apps/api/dist/common/config.js";
import { createLogger, NestPinoLogger } from "../../apps/api/dist/common/logger.js";
import { ImageEngines } from "../../apps/api/dist/engines/image-engines.js";
import { ProceduralEngine } from "../../apps/api/dist/engines/procedural.engine.js";
import { BENCH_PROMPT } from "./generation-requests.mjs";

/** @typedef {import("../../apps/api/dist/engines/image-engine.js").GeneratedImage} GeneratedImage */

/** Implements the ImageEngine interface. */
class StoredBytesEngine {
  /** In place of the default engine, which the bench's generations are given. @type {"procedural"} */
  name = "procedural";
  takesImagePrompt = false;

  /** @param {GeneratedImage[]} images */
  constructor(images) {
    this.images = images;
  }

  /** It names no model. */
  modelFor() {
    return undefined;
  }

  /** @param {unknown} _request @param {{ signal: AbortSignal }} options */
  async *generate(_request, { signal }) {
    for (const image of this.images) {
      if (signal.aborted) return;
      yield image;
    }
  }
}

const config = loadConfig({ ...process.env, ROLE: "worker" });
const logger = createLogger(config.logLevel);
const images = [];
for await (const image of new ProceduralEngine().generate(BENCH_PROMPT, {
  signal: new AbortController().signal,
})) {
  images.push(image);
}
const resources = await openResources(config, logger);
const worker = await Test.createTestingModule({ imports: [AppModule.forResources(resources)] })
  .overrideProvider(ImageEngines)
  .useValue(new ImageEngines([new StoredBytesEngine(images)], {}))
  .setLogger(new NestPinoLogger(logger))
  .compile();
await worker.init();
process.stdout.write("stored-bytes worker ready\n");
let isStopping = false;
const shutdown = async () => {
  // SIGTERM and the end of stdin may both come: one shutdown.
  if (isStopping) return;
  isStopping = true;
  await worker.close();
  await resources.close();
  process.exit(0);
};
process.once("SIGTERM", shutdown);
// The bench holds this worker's stdin: however the bench ends, even killed, the worker ends with it
// instead of taking the jobs of a later run.
process.stdin.once("end", shutdown).resume();
