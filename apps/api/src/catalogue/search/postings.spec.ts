import { describe, expect, it } from "vitest";
import { decodePostings } from "./postings.js";

describe("decodePostings", () => {
  it("unpacks big-endian document numbers and their impact bytes, in order", () => {
    const numbers = [0, 1, 254, 65_537, 16_777_217, 2_147_483_647];
    const packed = Buffer.alloc(4 * numbers.length);
    for (const [index, number] of numbers.entries()) packed.writeInt32BE(number, 4 * index);
    const impacts = Buffer.from([1, 2, 128, 200, 254, 255]);

    const postings = decodePostings({
      documents: packed.toString("base64"),
      impacts: impacts.toString("base64"),
    });

    expect([...postings.documents]).toEqual(numbers);
    expect([...postings.impacts]).toEqual([...impacts]);
  });

  it("answers no postings for empty blocks", () => {
    const postings = decodePostings({ documents: "", impacts: "" });

    expect(postings.documents).toHaveLength(0);
    expect(postings.impacts).toHaveLength(0);
  });
});
