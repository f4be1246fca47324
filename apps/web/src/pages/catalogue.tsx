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
import { Field } from "../components/field";
import { ErrorMessage, Loaded } from "../components/messages";
import { PageHeading } from "../components/page-heading";
import { Pager } from "../components/pager";
import { Table } from "../components/table";
import { checkForm } from "../form-problems";
import { formatDate, onThisOrigin } from "../format";
import { useAction, useOffsetPages } from "../hooks";

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
  const [formError, setFormError] = useState<string | undefined>(undefined);
  const results = useOffsetPages(
    PAGE_SIZE,
    (page) => call(accountCatalogueOperations.searchAccountImages, { body: { ...search, ...page } }),
    [search],
  );
  const downloaded = useOffsetPages(DOWNLOADED_PAGE_SIZE, (page) =>
    call(accountCatalogueOperations.downloadedAccountImages, { body: page }),
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
    const checked = checkForm(SearchImagesRequestSchema, wanted, () => "form");
    if ("problems" in checked) {
      setFormError(checked.problems.form?.join("\n"));
      return;
    }
    setFormError(undefined);
    setSearch(wanted);
    results.pages.setOffset(0);
  };

  return (
    <>
      <PageHeading>Catalogue</PageHeading>
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
      <ErrorMessage text={formError} />
      <Loaded state={results} what="images">
        {({ images, filteredResults }) => (
          <section aria-label="Search results">
            <p className="hint" aria-live="polite">
              {filteredResults} images found
            </p>
            <ul className="cards plain">
              {images.map((image) => (
                <CatalogueImage key={image.id} image={image} onBought={() => void downloaded.reload()} />
              ))}
            </ul>
            <Pager label="Search result pages" pages={results.pages} total={filteredResults} />
          </section>
        )}
      </Loaded>
      <h2>Your images</h2>
      <p className="hint">Images you bought, with fresh download links each time this list loads.</p>
      <Loaded
        state={downloaded}
        what="your images"
        isEmpty={({ images }) => images.length === 0}
        empty="You have not bought an image yet."
      >
        {({ images, filteredResults }) => (
          <>
            <Table
              label="Your images"
              rows={images}
              rowKey={(image) => image.id}
              columns={[
                {
                  header: "Image",
                  cell: (image) => (
                    <img className="thumb" src={onThisOrigin(image.url)} alt={`Preview of ${image.id}`} />
                  ),
                },
                { header: "Bought", cell: (image) => formatDate(image.downloadedAt) },
                { header: "Download", cell: (image) => <DownloadLinks image={image} label={image.id} /> },
              ]}
            />
            <Pager label="Pages of your images" pages={downloaded.pages} total={filteredResults} />
          </>
        )}
      </Loaded>
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
