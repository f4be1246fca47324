import { ApiError, type ImagehubClient } from "@imagehub/client";
import type { Credit } from "@imagehub/domain";

/** The bucket that pays for purchases. */
const PURCHASE_BUCKET = "f_images";

export type BuyOutcome =
  | {
      kind: "bought";
      imageNumber: number;
      links: { full: string; upscale: string | undefined; uhd: string };
      /** Purchase credits left, or "unlimited". */
      creditsLeft: number | "unlimited" | undefined;
    }
  | { kind: "no-credits"; imageNumber: number; message: string };

/**
 * Buys one image of a generation for a team. The API debits an account once per image, so a second click
 * (or two at once) answers the same links without a second debit.
 */
export async function buyImage(
  client: ImagehubClient,
  { imageId, imageNumber }: { imageId: string; imageNumber: number },
): Promise<BuyOutcome> {
  try {
    const bought = await client.images.buy(imageId);
    const { credits } = await client.credits.get();
    return {
      kind: "bought",
      imageNumber,
      links: { full: bought.urlFull, upscale: bought.urlUpscale, uhd: bought.urlUpscaleUHD },
      creditsLeft: creditsLeft(credits.find((credit) => credit.type === PURCHASE_BUCKET)),
    };
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 402) {
      return { kind: "no-credits", imageNumber, message: error.messages.join("; ") };
    }
    throw error;
  }
}

function creditsLeft(bucket: Credit | undefined): number | "unlimited" | undefined {
  if (!bucket) return undefined;
  return bucket.unlimited ? "unlimited" : bucket.credit;
}
