import { type AccountImage, accountCatalogueOperations, type PurchasedImage } from "@imagehub/domain";
import { useEffect, useState } from "react";
import { call } from "../api";
import { onThisOrigin } from "../format";
import { useAction } from "../hooks";
import { ConfirmedAction } from "./confirmed-action";
import { ErrorMessage } from "./messages";

/** What an image costs, in words: "Free" or "2 credits". */
export function priceOf(image: Pick<AccountImage, "price">): string {
  return image.price === 0 ? "Free" : `${image.price} ${image.price === 1 ? "credit" : "credits"}`;
}

/**
 * The prices and the account's purchases of the images a page lists, by id: a purchase made on any page
 * shows on every page, and after a reload. `bought` records one made here.
 */
export function useAccountImages(imageIds: readonly string[]) {
  const [images, setImages] = useState<ReadonlyMap<string, AccountImage>>(new Map());
  const key = imageIds.join(",");
  // biome-ignore lint/correctness/useExhaustiveDependencies: the ids' text stands for the list.
  useEffect(() => {
    if (imageIds.length === 0) return;
    let isCurrent = true;
    void call(accountCatalogueOperations.accountImages, { body: { ids: [...imageIds] } }).then(
      (answer) => {
        if (isCurrent) setImages(new Map(answer.images.map((image) => [image.id, image])));
      },
      () => undefined,
    );
    return () => {
      isCurrent = false;
    };
  }, [key]);
  const bought = (purchase: PurchasedImage) =>
    setImages((current) => {
      const image = current.get(purchase.id);
      return image ? new Map(current).set(purchase.id, { ...image, purchase }) : current;
    });
  return { images, bought };
}

/** Buy, after a question that names the price; nothing is taken before the reader says yes. */
export function BuyImage({
  image,
  name,
  onBought,
}: {
  image: AccountImage;
  name: string;
  onBought: (purchase: PurchasedImage) => void;
}) {
  const { run, error, isBusy } = useAction();
  const buy = async () => {
    const purchase = await run(() =>
      call(accountCatalogueOperations.buyAccountImage, { body: { id: image.id } }),
    );
    if (purchase) onBought(purchase);
    return purchase !== undefined;
  };
  return (
    <>
      <ConfirmedAction
        label={`Buy ${name} (${priceOf(image)})`}
        confirmLabel={
          image.price === 0
            ? `Yes, get ${name} for free`
            : `Yes, buy ${name} for ${image.price} f_images ${image.price === 1 ? "credit" : "credits"}`
        }
        warning={image.price === 0 ? "Free: no credit is taken." : "Taken from your f_images credits, once."}
        onConfirm={buy}
        isBusy={isBusy}
        className=""
      />
      <ErrorMessage text={error} />
    </>
  );
}

/** A purchase's clean files; each link is signed and expires, so pages fetch fresh ones each time they load. */
export function DownloadLinks({ image, name }: { image: PurchasedImage; name: string }) {
  const links: [string, string | undefined][] = [
    ["Full size", image.urlFull],
    ["2× upscale", image.urlUpscale],
    ["UHD", image.urlUpscaleUHD],
  ];
  return (
    <span className="row">
      {links.map(
        ([label, url]) =>
          url && (
            <a key={label} href={onThisOrigin(url)} download aria-label={`Download ${name}: ${label}`}>
              {label}
            </a>
          ),
      )}
    </span>
  );
}

/** Marks an image the account owns. */
export function OwnedBadge() {
  return <span className="badge ok">owned</span>;
}
