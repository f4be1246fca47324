import { type ReactNode, useEffect, useRef } from "react";
import { wasNavigatedTo } from "../router";

/**
 * A page's main heading: it names the browser tab, and takes focus when the page was navigated to, so that
 * a screen reader announces the new page and the keyboard starts from it (a page load does neither by itself
 * in a single-page app).
 */
export function PageHeading({ children, title }: { children: ReactNode; title?: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const name = title ?? (typeof children === "string" ? children : "");
  useEffect(() => {
    document.title = name ? `${name} · imagehub` : "imagehub";
    if (wasNavigatedTo()) heading.current?.focus();
  }, [name]);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {children}
    </h1>
  );
}
