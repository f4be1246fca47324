import type { TIMES, WEATHERS } from "@imagehub/domain";

export type TimeOfDay = (typeof TIMES)[number];
export type Weather = (typeof WEATHERS)[number];
export type SceneElement = keyof typeof ELEMENT_WORDS;
/** Each part of the picture draws from its own stream, so one part drawing more never moves another. */
export type ScenePart = "palette" | "sky" | "land" | "trees" | "city" | "weather";

/** What the landscape renderer draws: everything it needs, already decided. */
export interface LandscapeScene {
  width: number;
  height: number;
  /** Absent: afternoon. */
  timeOfDay: TimeOfDay | undefined;
  /** Absent: sunny. */
  weather: Weather | undefined;
  elements: ReadonlySet<SceneElement>;
  randomFor: (part: ScenePart) => () => number;
  /** Multipliers applied to the finished picture; 1 leaves it as drawn. */
  saturation: number;
  contrast: number;
}

/** A case-insensitive match of whole words, accented ones included; a trailing `*` allows any ending. */
function words(...list: string[]): RegExp {
  const alternatives = list.map((word) => word.replace(/\*$/, "\\p{L}*")).join("|");
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives})(?![\\p{L}\\p{N}])`, "iu");
}

/** Words that put an element in the picture (description) or take it out (negative), English and French. */
const ELEMENT_WORDS = {
  water: words(
    "seas?",
    "oceans?",
    "mer",
    "beach(es)?",
    "plages?",
    "lakes?",
    "lacs?",
    "rivers?",
    "rivières?",
    "harbou?rs?",
    "ports?",
    "coasts?",
    "côtes?",
    "canals?",
    "canaux",
    "bays?",
    "baies?",
    "water",
    "eau",
  ),
  trees: words(
    "forests?",
    "forêts?",
    "trees?",
    "arbres?",
    "woods?",
    "bois",
    "jungles?",
    "pines?",
    "pins",
    "oaks?",
    "chênes?",
  ),
  peaks: words("mountain*", "montagne*", "peaks?", "sommets?", "alpine", "alpages?", "valleys?", "vallées?"),
  city: words(
    "city",
    "cities",
    "villes?",
    "streets?",
    "rues?",
    "rooftops?",
    "toits?",
    "paris",
    "stations?",
    "gares?",
    "villages?",
    "buildings?",
    "immeubles?",
  ),
  sun: words("suns?", "soleil", "moons?", "lune"),
  stars: words("stars?", "étoiles?"),
  clouds: words("clouds?", "nuages?"),
};

/** Drawn whenever the time and weather call for them, unless a negative term names them. */
const AMBIENT_ELEMENTS: readonly SceneElement[] = ["sun", "stars", "clouds"];

/** Fallbacks read from the description, in order: the first match wins. */
const TIME_WORDS: ReadonlyArray<readonly [TimeOfDay, RegExp]> = [
  ["midnight", words("midnight", "minuit")],
  ["night", words("night", "nights", "nuit", "nuits", "nocturn*")],
  ["golden hour", words("golden hour", "heure dorée")],
  ["sunrise", words("sunrise", "dawn", "aube", "lever du soleil", "lever")],
  ["sunset", words("sunset", "dusk", "coucher du soleil", "coucher", "crépuscule")],
  ["evening", words("evening", "soir*")],
  ["morning", words("morning", "matin*")],
  ["afternoon", words("afternoon", "après-midi", "midday", "noon", "midi")],
];
const WEATHER_WORDS: ReadonlyArray<readonly [Weather, RegExp]> = [
  ["snowy", words("snow*", "neige*", "enneig*", "winter", "hiver", "frozen", "gel*", "blizzard")],
  ["thunderstorm", words("thunder*", "storms?", "orages?", "lightning", "éclairs?")],
  ["rainy", words("rain", "rainy", "raining", "pluie", "pluvieu*", "showers?", "averses?")],
  ["foggy", words("fog*", "brouillard", "mist*", "brum*", "haze", "hazy")],
  ["cloudy", words("cloud*", "nuag*", "overcast", "couvert")],
  ["sunny", words("sunny", "sunshine", "ensoleill*")],
];

/** The time, weather and elements a description asks for, without those a negative term names. */
export function readScene(
  description: string,
  negative: readonly string[] = [],
): Pick<LandscapeScene, "timeOfDay" | "weather" | "elements"> {
  const isNamed = (element: SceneElement) => ELEMENT_WORDS[element].test(description);
  const isRefused = (element: SceneElement) => negative.some((term) => ELEMENT_WORDS[element].test(term));
  const elements = (Object.keys(ELEMENT_WORDS) as SceneElement[]).filter(
    (element) => (AMBIENT_ELEMENTS.includes(element) || isNamed(element)) && !isRefused(element),
  );
  return {
    timeOfDay: TIME_WORDS.find(([, pattern]) => pattern.test(description))?.[0],
    weather: WEATHER_WORDS.find(([, pattern]) => pattern.test(description))?.[0],
    elements: new Set(elements),
  };
}
