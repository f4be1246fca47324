import type { AnchorHTMLAttributes, MouseEvent } from "react";
import { useSyncExternalStore } from "react";

/** A few pages need no router library: the path is the state, history the store. */
const NAVIGATE = "imagehub:navigate";

// Whether the reader has moved from the page first loaded: from then on each page takes focus as it opens.
let hasNavigated = false;
window.addEventListener("popstate", () => {
  hasNavigated = true;
});

/** Whether a page now opening was navigated to (a link, back or forward) rather than loaded first. */
export function wasNavigatedTo(): boolean {
  return hasNavigated;
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener("popstate", onChange);
  window.addEventListener(NAVIGATE, onChange);
  return () => {
    window.removeEventListener("popstate", onChange);
    window.removeEventListener(NAVIGATE, onChange);
  };
}

export function usePath(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname);
}

export function navigate(to: string, { replace = false } = {}): void {
  hasNavigated = true;
  if (replace) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  window.dispatchEvent(new Event(NAVIGATE));
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    // Let the browser open new tabs and windows as usual.
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
      return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={follow} {...rest} />;
}
