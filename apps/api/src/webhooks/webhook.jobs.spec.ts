import { describe, expect, it } from "vitest";
import { DELIVERY_GROUP_SIZE, groupDeliveries } from "./webhook.jobs.js";

const webhookA = "00000000-0000-4000-8000-00000000000a";
const webhookB = "00000000-0000-4000-8000-00000000000b";
const event = (index: number) => `00000000-0000-4000-9000-${String(index).padStart(12, "0")}`;

describe("groupDeliveries", () => {
  it("groups each webhook's deliveries of one attempt, in the order given", () => {
    const groups = groupDeliveries([
      { webhookId: webhookA, eventId: event(1), attempt: 1 },
      { webhookId: webhookB, eventId: event(1), attempt: 1 },
      { webhookId: webhookA, eventId: event(2), attempt: 3 },
      { webhookId: webhookA, eventId: event(3), attempt: 1 },
    ]);
    expect(groups).toEqual([
      { webhookId: webhookA, attempt: 1, eventIds: [event(1), event(3)] },
      { webhookId: webhookB, attempt: 1, eventIds: [event(1)] },
      { webhookId: webhookA, attempt: 3, eventIds: [event(2)] },
    ]);
  });

  it("starts a new group once one holds the group size", () => {
    const count = DELIVERY_GROUP_SIZE * 2 + 1;
    const groups = groupDeliveries(
      Array.from({ length: count }, (_, index) => ({
        webhookId: webhookA,
        eventId: event(index),
        attempt: 1,
      })),
    );
    expect(groups.map((group) => group.eventIds.length)).toEqual([
      DELIVERY_GROUP_SIZE,
      DELIVERY_GROUP_SIZE,
      1,
    ]);
    expect(groups.flatMap((group) => group.eventIds)).toEqual(
      Array.from({ length: count }, (_, index) => event(index)),
    );
  });
});
