import {
  accountCatalogueOperations,
  IMAGE_SORTS,
  type Image,
  type PurchasedImage,
  type SearchImagesRequest,
  SearchImagesRequestSchema,
} from "@imagehub/domain";
import { type FormEvent, useState } from "react";
import { call } from "../api";
import { ErrorMessage, Field, formatDate, Loading, onThisOrigin, Pager, ScrollingTable } from "../components";
import { useAction, useLoad } from "../hooks";

const PAGE_SIZE = 12;
const DOWNLOADED_PAGE_SIZE = 6;
const SORT_LABELS: Record<(typeof IMAGE_SORTS)[number], string> = {
  relevance: "Relevance",
  newest: "Newest",
  oldest: "Oldest",
  popular: "Most bought",
};

type Search = Pick<SearchImagesRequest, "search" | "filterFree" | "sort">;

function titleOf(image: Pick<Image, "titles" | "id">): string {
  return image.titles.en ?? Object.values(image.titles)[0] ?? image.id;
}

export function CataloguePage() {
  const [search, setSearch] = useState<Search>({});
  const [offset, setOffset] = useState(0);
  const [formError, setFormError] = useState<string | undefined>(undefined);
  const [downloadedOffset, setDownloadedOffset] = useState(0);
  const results = useLoad(
    () =>
      call(accountCatalogueOperations.searchAccountImages, { body: { ...search, limit: PAGE_SIZE, offset } }),
    [search, offset],
  );
  const downloaded = useLoad(
    () =>
      call(accountCatalogueOperations.downloadedAccountImages, {
        body: { limit: DOWNLOADED_PAGE_SIZE, offset: downloadedOffset },
      }),
    [downloadedOffset],
  );

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const wanted = {
      search: String(form.get("search") ?? "") || undefined,
      filterFree: form.get("filterFree") === "on" || undefined,
      sort: (String(form.get("sort") ?? "") || undefined) as Search["sort"],
    };
    // The API's own schema: what it would refuse is refused here, with its words.
    const parsed = SearchImagesRequestSchema.safeParse(wanted);
    if (!parsed.success) {
      setFormError(
        parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("\n"),
      );
      return;
    }
    setFormError(undefined);
    setSearch(wanted);
    setOffset(0);
  };

  return (
    <>
      <h1>Catalogue</h1>
      <form onSubmit={submit} className="row" aria-label="Search the catalogue">
        <Field label="Keywords">
          <input name="search" type="search" maxLength={300} placeholder="lighthouse at dusk" />
        </Field>
        <Field label="Sort by">
          <select name="sort" defaultValue="">
            <option value="">Best first</option>
            {IMAGE_SORTS.map((sort) => (
              <option key={sort} value={sort}>
                {SORT_LABELS[sort]}
              </option>
            ))}
          </select>
        </Field>
        <label className="check">
          <input name="filterFree" type="checkbox" /> Free images only
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorMessage text={formError ?? results.error} />
      {!results.data ? (
        <Loading what="images" />
      ) : (
        <section aria-label="Search results">
          <p className="hint" aria-live="polite">
            {results.data.filteredResults} images found
          </p>
          <ul className="cards plain">
            {results.data.images.map((image) => (
              <CatalogueImage key={image.id} image={image} onBought={() => void downloaded.reload()} />
            ))}
          </ul>
          <Pager
            label="Search result pages"
            offset={offset}
            limit={PAGE_SIZE}
            total={results.data.filteredResults}
            onChange={setOffset}
          />
        </section>
      )}
      <h2>Your images</h2>
      <p className="hint">Images you bought, with fresh download links each time this list loads.</p>
      <ErrorMessage text={downloaded.error} />
      {!downloaded.data ? (
        <Loading what="your images" />
      ) : downloaded.data.images.length === 0 ? (
        <p>You have not bought an image yet.</p>
      ) : (
        <>
          <ScrollingTable label="Your images">
            <thead>
              <tr>
                <th scope="col">Image</th>
                <th scope="col">Bought</th>
                <th scope="col">Download</th>
              </tr>
            </thead>
            <tbody>
              {downloaded.data.images.map((image) => (
                <tr key={image.id}>
                  <td>
                    <img className="thumb" src={onThisOrigin(image.url)} alt={`Preview of ${image.id}`} />
                  </td>
                  <td>{formatDate(image.downloadedAt)}</td>
                  <td>
                    <DownloadLinks image={image} label={image.id} />
                  </td>
                </tr>
              ))}
            </tbody>
          </ScrollingTable>
          <Pager
            label="Pages of your images"
            offset={downloadedOffset}
            limit={DOWNLOADED_PAGE_SIZE}
            total={downloaded.data.filteredResults}
            onChange={setDownloadedOffset}
          />
        </>
      )}
    </>
  );
}

function CatalogueImage({ image, onBought }: { image: Image; onBought: () => void }) {
  const [isConfirming, setConfirming] = useState(false);
  const [bought, setBought] = useState<PurchasedImage | undefined>(undefined);
  const { run, error, isBusy } = useAction();
  const title = titleOf(image);

  const buy = async () => {
    const answer = await run(() =>
      call(accountCatalogueOperations.buyAccountImage, { body: { id: image.id } }),
    );
    setConfirming(false);
    if (!answer) return;
    setBought(answer);
    onBought();
  };

  return (
    <li className="card">
      <img className="preview" src={onThisOrigin(image.url)} alt={title} loading="lazy" />
      <span>
        {title} {image.free && <span className="badge ok">free</span>}
      </span>
      {bought ? (
        <DownloadLinks image={bought} label={title} />
      ) : isConfirming ? (
        <div className="row">
          <span>
            {image.free ? "Free: no credit is taken." : "Takes its price from your f_images credits, once."}
          </span>
          <button type="button" onClick={() => void buy()} disabled={isBusy} aria-label={`Yes, buy ${title}`}>
            Yes, buy
          </button>
          <button type="button" className="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <button type="button" onClick={() => setConfirming(true)} aria-label={`Buy ${title}`}>
          Buy
        </button>
      )}
      <ErrorMessage text={error} />
    </li>
  );
}

/** The purchase's clean files; each link is signed and expires, so the list fetches fresh ones each time. */
function DownloadLinks({ image, label }: { image: PurchasedImage; label: string }) {
  const links: [string, string | undefined][] = [
    ["Full size", image.urlFull],
    ["2× upscale", image.urlUpscale],
    ["UHD", image.urlUpscaleUHD],
  ];
  return (
    <span className="row">
      {links.map(
        ([name, url]) =>
          url && (
            <a key={name} href={onThisOrigin(url)} download aria-label={`Download ${label}: ${name}`}>
              {name}
            </a>
          ),
      )}
    </span>
  );
}
