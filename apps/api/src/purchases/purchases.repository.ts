import { Inject, Injectable } from "@nestjs/common";
import { debit } from "../accounts/credit-ledger.statements.js";
import type { ImageSummary } from "../catalogue/catalogue.repository.js";
import { PRISMA, type PrismaClient } from "../common/core.module.js";
import { NotEnoughCredits } from "../common/domain-errors.js";
import { isUuid } from "../common/uuid.js";

export interface PurchaseRecord {
  imageId: string;
  price: number;
  downloadedAt: Date;
}

/** An image an account may see, with its price and the account's purchase of it, if any. */
export interface ImageOffer {
  image: ImageSummary;
  price: number;
  purchase: PurchaseRecord | null;
}

export type ObtainResult =
  | { outcome: "obtained"; purchase: PurchaseRecord; isFirst: boolean }
  | { outcome: "no-such-image" }
  | { outcome: "not-enough-credits"; price: number; balance: number };

/** Purchases and the f_images debits that pay for them. */
@Injectable()
export class PurchasesRepository {
  constructor(@Inject(PRISMA) private readonly prisma: PrismaClient) {}

  /**
   * Records that the account obtained the image and debits its price, in one transaction, the first time
   * only. The unique (account, image) index makes concurrent first obtains wait for each other, so one of
   * them debits; the balance CHECK on credit_buckets refuses any debit that would overdraw.
   */
  async obtain(accountId: string, imageId: string, actor: string): Promise<ObtainResult> {
    if (!isUuid(imageId)) return { outcome: "no-such-image" };
    try {
      return await this.prisma.$transaction(
        async (tx) => {
          const [inserted] = await tx.$queryRaw<PurchaseRecord[]>`
            INSERT INTO purchases (account_id, image_id, price)
            SELECT ${accountId}::uuid, id, CASE WHEN free THEN 0 ELSE price END FROM images
            WHERE id = ${imageId}::uuid AND (owner_account_id IS NULL OR owner_account_id = ${accountId}::uuid)
            ON CONFLICT (account_id, image_id) DO NOTHING
            RETURNING image_id AS "imageId", price, downloaded_at AS "downloadedAt"`;
          if (!inserted) {
            const existing = await tx.purchase.findUnique({
              where: { accountId_imageId: { accountId, imageId } },
              select: { imageId: true, price: true, downloadedAt: true },
            });
            return existing
              ? { outcome: "obtained" as const, purchase: existing, isFirst: false }
              : { outcome: "no-such-image" as const };
          }
          if (inserted.price > 0) {
            await debit(tx, {
              accountId,
              types: ["f_images"],
              amount: inserted.price,
              reason: "purchase",
              reference: imageId,
              actor,
            });
          }
          await tx.image.update({ where: { id: imageId }, data: { popularity: { increment: 1 } } });
          return { outcome: "obtained" as const, purchase: inserted, isFirst: true };
        },
        // Many buyers at once queue for connections; let them wait rather than fail.
        { maxWait: 10_000, timeout: 10_000 },
      );
    } catch (error) {
      if (error instanceof NotEnoughCredits) {
        return { outcome: "not-enough-credits", price: error.needed, balance: error.balance };
      }
      throw error;
    }
  }

  async listObtained(
    accountId: string,
    filter: { after: Date | undefined; before: Date | undefined; limit: number; offset: number },
  ): Promise<{ total: number; purchases: PurchaseRecord[] }> {
    const where = { accountId, downloadedAt: { gt: filter.after, lt: filter.before } };
    const [total, purchases] = await Promise.all([
      this.prisma.purchase.count({ where }),
      this.prisma.purchase.findMany({
        where,
        orderBy: [{ downloadedAt: "desc" }, { id: "desc" }],
        skip: filter.offset,
        take: filter.limit,
        select: { imageId: true, price: true, downloadedAt: true },
      }),
    ]);
    return { total, purchases };
  }

  /**
   * Of these images, those the account may see (catalogue images, and generated ones of its own), each with
   * its price and the account's purchase.
   */
  async offers(accountId: string, imageIds: readonly string[]): Promise<ImageOffer[]> {
    const images = await this.prisma.image.findMany({
      where: {
        id: { in: imageIds.filter(isUuid) },
        OR: [{ ownerAccountId: null }, { ownerAccountId: accountId }],
      },
      select: {
        id: true,
        titles: true,
        free: true,
        validate: true,
        price: true,
        purchases: { where: { accountId }, select: { imageId: true, price: true, downloadedAt: true } },
      },
    });
    return images.map(({ purchases, price, ...image }) => ({
      image: { ...image, titles: image.titles as Record<string, string> },
      price: image.free ? 0 : price,
      purchase: purchases[0] ?? null,
    }));
  }
}
