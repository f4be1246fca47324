import { MOMENTS, type Phrase, SETTINGS, STYLES, SUBJECTS } from "./vocabulary.js";

export interface CatalogueEntry {
  titles: { en: string; fr: string };
  tags: string[];
}

function weightedPicker(phrases: Phrase[]): (random: () => number) => Phrase {
  const cumulative: number[] = [];
  let total = 0;
  for (const phrase of phrases) {
    total += phrase.weight ?? 1;
    cumulative.push(total);
  }
  return (random) => {
    const target = random() * total;
    const index = cumulative.findIndex((bound) => target < bound);
    return phrases[index === -1 ? phrases.length - 1 : index] as Phrase;
  };
}

const pickSubject = weightedPicker(SUBJECTS);
const pickSetting = weightedPicker(SETTINGS);
const pickMoment = weightedPicker(MOMENTS);
const pickStyle = weightedPicker(STYLES);

/** "A red fox in a snowy forest at sunrise, watercolor" / "Un renard roux dans une forêt enneigée au lever du soleil, aquarelle" */
export function generateEntry(random: () => number): CatalogueEntry {
  const parts = [pickSubject(random), pickSetting(random), pickMoment(random)];
  const style = pickStyle(random);
  const title = (language: "en" | "fr") => {
    const sentence = parts.map((part) => part[language]).join(" ");
    const styled = style[language] ? `${sentence}, ${style[language]}` : sentence;
    return styled.charAt(0).toUpperCase() + styled.slice(1);
  };
  return {
    titles: { en: title("en"), fr: title("fr") },
    tags: [...new Set([...parts, style].flatMap((part) => part.tags))],
  };
}
