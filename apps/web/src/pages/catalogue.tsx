import {
  type AccountImage,
  accountCatalogueOperations,
  IMAGE_SORTS,
  type Image,
  MAX_SEARCH_CHARACTERS,
  type PurchasedImage,
  type SearchImagesRequest,
  SearchImagesRequestSchema,
} from "@imagehub/domain";
import { type FormEvent, Fragment, useState } from "react";
import { call } from "../api";
import { Field } from "../components/field";
import { ErrorMessage, Loaded } from "../components/messages";
import { PageHeading } from "../components/page-heading";
import { Pager } from "../components/pager";
import { BuyImage, DownloadLinks, OwnedBadge, priceOf, useAccountImages } from "../components/purchase";
import { Table } from "../components/table";
import { checkForm } from "../form-problems";
import { formatDate, onThisOrigin } from "../format";
import { useLoad, useOffsetPages } from "../hooks";
import { Link } from "../router";

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
  const owned = useAccountImages(results.data?.images.map((image) => image.id) ?? []);
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
          <input
            name="search"
            type="search"
            maxLength={MAX_SEARCH_CHARACTERS}
            placeholder="lighthouse at dusk"
          />
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
                <CatalogueImage
                  key={image.id}
                  image={image}
                  details={owned.images.get(image.id)}
                  onBought={(purchase) => {
                    owned.bought(purchase);
                    void downloaded.reload();
                  }}
                />
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
                { header: "Download", cell: (image) => <DownloadLinks image={image} name={image.id} /> },
              ]}
            />
            <Pager label="Pages of your images" pages={downloaded.pages} total={filteredResults} />
          </>
        )}
      </Loaded>
    </>
  );
}

function CatalogueImage({
  image,
  details,
  onBought,
}: {
  image: Image;
  details: AccountImage | undefined;
  onBought: (purchase: PurchasedImage) => void;
}) {
  const title = titleOf(image);
  return (
    <li className="card">
      <Link href={`/catalogue/${image.id}`} aria-label={`${title}: the image's page`}>
        <img className="preview" src={onThisOrigin(image.url)} alt={title} loading="lazy" />
      </Link>
      <span>
        <Link href={`/catalogue/${image.id}`}>{title}</Link> {details?.purchase && <OwnedBadge />}
      </span>
      {details && <span className="hint">{priceOf(details)}</span>}
      {details?.purchase ? (
        <DownloadLinks image={details.purchase} name={title} />
      ) : (
        details && <BuyImage image={details} name={title} onBought={onBought} />
      )}
    </li>
  );
}

/** One image of the catalogue: large, with its titles, its price, and buy or download. */
export function ImagePage({ imageId }: { imageId: string }) {
  const state = useLoad(
    () => call(accountCatalogueOperations.getAccountImage, { params: { imageId } }),
    [imageId],
  );
  const [purchase, setPurchase] = useState<PurchasedImage | undefined>(undefined);
  const image = state.data;
  const title = image ? titleOf(image) : "Image";
  const owned = purchase ?? image?.purchase ?? undefined;
  return (
    <>
      <p>
        <Link href="/catalogue">Back to the catalogue</Link>
      </p>
      <PageHeading>{title}</PageHeading>
      <Loaded state={state} what="the image">
        {(loaded) => (
          <div className="image-page">
            <img className="large" src={onThisOrigin(loaded.urlFull)} alt={title} />
            <div className="stack">
              <dl className="facts">
                <dt>Price</dt>
                <dd>{priceOf(loaded)}</dd>
                <dt>Yours</dt>
                <dd>{owned ? <OwnedBadge /> : "not bought yet"}</dd>
                {Object.entries(loaded.titles).map(([language, text]) => (
                  <Fragment key={language}>
                    <dt>Title ({language})</dt>
                    <dd lang={language}>{text}</dd>
                  </Fragment>
                ))}
              </dl>
              {owned ? (
                <DownloadLinks image={owned} name={title} />
              ) : (
                <BuyImage image={loaded} name={title} onBought={setPurchase} />
              )}
            </div>
          </div>
        )}
      </Loaded>
    </>
  );
}
