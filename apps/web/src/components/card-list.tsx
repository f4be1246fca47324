import type { Key, ReactNode } from "react";
import { Loaded } from "./messages";

/** A loaded list shown as cards, one an item, or `empty` when there is none. */
export function CardList<T, Item extends { id: Key }>({
  state,
  what,
  items,
  empty,
  card,
}: {
  state: { data: T | undefined; error: string | undefined };
  what: string;
  items: (data: T) => readonly Item[];
  empty: string;
  card: (item: Item) => ReactNode;
}) {
  return (
    <Loaded state={state} what={what} isEmpty={(data) => items(data).length === 0} empty={empty}>
      {(data) => (
        <ul className="plain stack">
          {items(data).map((item) => (
            <li key={item.id}>{card(item)}</li>
          ))}
        </ul>
      )}
    </Loaded>
  );
}
