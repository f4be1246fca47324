import type { AccountImage, PurchasedImage } from "@imagehub/domain";
import { onThisOrigin } from "../format";
import { BuyImage, DownloadLinks, OwnedBadge } from "./purchase";

/**
 * One image of a generation: its full size (U), a new generation varying it (V), and once it is done its
 * price and Buy, or its links (the upscaled renditions too) when the account owns it.
 */
export function GeneratedImage({
  url,
  fullUrl,
  label,
  details,
  onBought,
  onVary,
  isBusy,
}: {
  url: string;
  fullUrl: string;
  label: string;
  details: AccountImage | undefined;
  onBought: (purchase: PurchasedImage) => void;
  onVary: (() => void) | undefined;
  isBusy: boolean;
}) {
  return (
    <figure>
      <img src={onThisOrigin(url)} alt={label} width={256} height={256} loading="lazy" />
      <figcaption className="stack-tight">
        <span className="row">
          <a href={onThisOrigin(fullUrl)} target="_blank" rel="noreferrer" aria-label={`Full size: ${label}`}>
            Full size
          </a>
          {onVary && (
            <button type="button" onClick={onVary} disabled={isBusy} aria-label={`Vary ${label}`}>
              Vary
            </button>
          )}
        </span>
        {details?.purchase ? (
          <>
            <OwnedBadge />
            <DownloadLinks image={details.purchase} name={label} />
          </>
        ) : (
          details && <BuyImage image={details} name={label} onBought={onBought} />
        )}
      </figcaption>
    </figure>
  );
}
