/**
 * The first refused term found in `text` as a whole word or phrase, case and accents aside; undefined when
 * the text may be generated.
 */
export function findRefusedTerm(text: string, refusedTerms: readonly string[]): string | undefined {
  const folded = fold(text);
  return refusedTerms.find((term) =>
    new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(fold(term))}($|[^\\p{L}\\p{N}])`, "u").test(folded),
  );
}

function fold(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
