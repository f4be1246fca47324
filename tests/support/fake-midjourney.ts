import { fakeGrid } from "./fake-pictures.js";
import { type FakeAnswer, FakeService } from "./fake-service.js";

export const SUBMIT_PATH = "/mj/submit/imagine";
export const TASK_ID = "1712345678901234";
export const FETCH_PATH = `/mj/task/${TASK_ID}/fetch`;
export const GRID_PATH = `/attachments/${TASK_ID}/grid.png`;

/** The quarter of the grid the fake draws: a 16:9 picture as Midjourney sizes it. */
export const QUARTER = { width: 1456, height: 816 };

/** The proxy's answer to a submission: accepted (code 1) with the task's id, or another code. */
export function submitAnswer(code = 1, description = "Submit success"): FakeAnswer {
  return { json: { code, description, result: code === 1 ? TASK_ID : null, properties: {} } };
}

/** A task as `/mj/task/{id}/fetch` shows it; finished ones point at their grid on the proxy. */
export function taskAnswer(
  baseUrl: string,
  task: { status: string; progress?: string; failReason?: string },
): FakeAnswer {
  return {
    json: {
      id: TASK_ID,
      action: "IMAGINE",
      prompt: "a red fox",
      promptEn: "a red fox",
      description: "/imagine a red fox",
      submitTime: 1_770_000_000_000,
      progress: task.progress ?? (task.status === "SUCCESS" ? "100%" : ""),
      imageUrl: task.status === "SUCCESS" ? `${baseUrl}${GRID_PATH}` : null,
      failReason: task.failReason ?? null,
      status: task.status,
      properties: {},
    },
  };
}

/** A midjourney-proxy on 127.0.0.1: accepts the submission, and the task is done at the first look. */
export async function startFakeMidjourney(): Promise<FakeService> {
  const grid = await fakeGrid(QUARTER.width, QUARTER.height);
  const fake = new FakeService()
    .on("POST", SUBMIT_PATH, () => submitAnswer())
    .on("GET", GRID_PATH, () => ({ headers: { "content-type": "image/png" }, bytes: grid }));
  await fake.start();
  return fake.on("GET", FETCH_PATH, () => taskAnswer(fake.url, { status: "SUCCESS" }));
}
