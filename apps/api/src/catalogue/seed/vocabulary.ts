/**
 * The words catalogue titles are made of, each with its English and French phrase (written whole, so the
 * French agrees in gender and number) and the tags it brings. `weight` makes some subjects rare, so that
 * searches can be measured on common and rare words alike.
 */
export interface Phrase {
  en: string;
  fr: string;
  tags: string[];
  weight?: number;
}

export const SUBJECTS: Phrase[] = [
  { en: "a red fox", fr: "un renard roux", tags: ["fox", "animal", "wildlife"] },
  { en: "a grey wolf", fr: "un loup gris", tags: ["wolf", "animal", "wildlife"] },
  { en: "a brown bear", fr: "un ours brun", tags: ["bear", "animal", "wildlife"] },
  { en: "a white horse", fr: "un cheval blanc", tags: ["horse", "animal"] },
  { en: "a black cat", fr: "un chat noir", tags: ["cat", "animal", "pet"] },
  { en: "a sleeping dog", fr: "un chien endormi", tags: ["dog", "animal", "pet"] },
  { en: "a flock of sheep", fr: "un troupeau de moutons", tags: ["sheep", "animal", "farm"] },
  { en: "an old lighthouse", fr: "un vieux phare", tags: ["lighthouse", "building", "coast"] },
  { en: "a wooden cabin", fr: "une cabane en bois", tags: ["cabin", "building", "wood"] },
  { en: "a stone bridge", fr: "un pont de pierre", tags: ["bridge", "architecture"] },
  { en: "a medieval castle", fr: "un château médiéval", tags: ["castle", "architecture", "history"] },
  { en: "a small chapel", fr: "une petite chapelle", tags: ["chapel", "architecture"] },
  { en: "a red tractor", fr: "un tracteur rouge", tags: ["tractor", "farm", "vehicle"] },
  { en: "a vintage car", fr: "une voiture ancienne", tags: ["car", "vehicle", "vintage"] },
  { en: "a sailing boat", fr: "un voilier", tags: ["boat", "sailing", "sea"] },
  { en: "a fishing boat", fr: "un bateau de pêche", tags: ["boat", "fishing", "sea"] },
  { en: "a steam train", fr: "un train à vapeur", tags: ["train", "railway", "vintage"] },
  { en: "a hot air balloon", fr: "une montgolfière", tags: ["balloon", "sky", "travel"] },
  { en: "a field of sunflowers", fr: "un champ de tournesols", tags: ["sunflower", "flower", "field"] },
  { en: "a field of lavender", fr: "un champ de lavande", tags: ["lavender", "flower", "field"] },
  { en: "a cherry tree in bloom", fr: "un cerisier en fleurs", tags: ["cherry", "tree", "spring"] },
  { en: "an old oak tree", fr: "un vieux chêne", tags: ["oak", "tree"] },
  { en: "a waterfall", fr: "une cascade", tags: ["waterfall", "water", "nature"] },
  { en: "a mountain lake", fr: "un lac de montagne", tags: ["lake", "mountain", "water"] },
  { en: "a snowy peak", fr: "un sommet enneigé", tags: ["mountain", "snow", "peak"] },
  { en: "a cup of coffee", fr: "une tasse de café", tags: ["coffee", "drink", "food"] },
  { en: "a basket of apples", fr: "un panier de pommes", tags: ["apple", "fruit", "food"] },
  { en: "a loaf of bread", fr: "une miche de pain", tags: ["bread", "bakery", "food"] },
  { en: "a street musician", fr: "un musicien de rue", tags: ["musician", "people", "music"] },
  {
    en: "a child flying a kite",
    fr: "un enfant qui fait voler un cerf-volant",
    tags: ["child", "kite", "people"],
  },
  { en: "an elderly fisherman", fr: "un vieux pêcheur", tags: ["fisherman", "people", "fishing"] },
  { en: "a cyclist", fr: "un cycliste", tags: ["cyclist", "bicycle", "sport"] },
  { en: "a hiker", fr: "un randonneur", tags: ["hiker", "hiking", "people"] },
  { en: "a pair of swans", fr: "un couple de cygnes", tags: ["swan", "bird", "animal"] },
  { en: "an owl", fr: "une chouette", tags: ["owl", "bird", "animal"] },
  { en: "a heron", fr: "un héron", tags: ["heron", "bird", "animal"] },
  {
    en: "a snow leopard",
    fr: "une panthère des neiges",
    tags: ["leopard", "animal", "wildlife"],
    weight: 0.05,
  },
  { en: "an axolotl", fr: "un axolotl", tags: ["axolotl", "animal"], weight: 0.01 },
  { en: "a narwhal", fr: "un narval", tags: ["narwhal", "animal", "sea"], weight: 0.02 },
  { en: "an elephant", fr: "un éléphant", tags: ["elephant", "animal", "wildlife"] },
];

export const SETTINGS: Phrase[] = [
  { en: "in a snowy forest", fr: "dans une forêt enneigée", tags: ["forest", "snow", "winter"] },
  { en: "in an autumn forest", fr: "dans une forêt d'automne", tags: ["forest", "autumn"] },
  { en: "in a pine forest", fr: "dans une forêt de pins", tags: ["forest", "pine"] },
  { en: "on a sandy beach", fr: "sur une plage de sable", tags: ["beach", "sea", "summer"] },
  { en: "by a rocky coast", fr: "près d'une côte rocheuse", tags: ["coast", "sea", "rocks"] },
  { en: "in a quiet harbour", fr: "dans un port tranquille", tags: ["harbour", "sea", "boats"] },
  { en: "in a mountain valley", fr: "dans une vallée de montagne", tags: ["valley", "mountain"] },
  { en: "on an alpine meadow", fr: "sur un alpage", tags: ["meadow", "mountain", "grass"] },
  { en: "in a wheat field", fr: "dans un champ de blé", tags: ["field", "wheat", "farm"] },
  { en: "near a country farm", fr: "près d'une ferme", tags: ["farm", "countryside"] },
  { en: "in an old village", fr: "dans un vieux village", tags: ["village", "countryside"] },
  { en: "in a busy city street", fr: "dans une rue animée", tags: ["city", "street", "urban"] },
  { en: "on a city rooftop", fr: "sur un toit de la ville", tags: ["city", "rooftop", "urban"] },
  { en: "in a Paris café", fr: "dans un café parisien", tags: ["paris", "cafe", "city"] },
  { en: "along a canal", fr: "le long d'un canal", tags: ["canal", "water", "city"] },
  { en: "by a frozen lake", fr: "au bord d'un lac gelé", tags: ["lake", "ice", "winter"] },
  { en: "by a river", fr: "au bord d'une rivière", tags: ["river", "water"] },
  { en: "in a desert", fr: "dans un désert", tags: ["desert", "sand", "dunes"] },
  { en: "in a tropical jungle", fr: "dans une jungle tropicale", tags: ["jungle", "tropical"] },
  { en: "in a rose garden", fr: "dans une roseraie", tags: ["garden", "roses", "flowers"] },
  { en: "in a vineyard", fr: "dans un vignoble", tags: ["vineyard", "wine", "countryside"] },
  { en: "on a misty hill", fr: "sur une colline brumeuse", tags: ["hill", "mist"] },
  { en: "under a stone arch", fr: "sous une arche de pierre", tags: ["arch", "architecture"] },
  { en: "at a train station", fr: "dans une gare", tags: ["station", "railway", "travel"] },
  { en: "in a lighthouse bay", fr: "dans une baie avec un phare", tags: ["bay", "sea", "coast"] },
];

/** Ten moments, each in about a tenth of the titles: their words are the "common words" of the benchmarks. */
export const MOMENTS: Phrase[] = [
  { en: "at sunrise", fr: "au lever du soleil", tags: ["sunrise", "morning"] },
  { en: "in the morning", fr: "le matin", tags: ["morning"] },
  { en: "at noon", fr: "à midi", tags: ["noon", "daylight"] },
  { en: "in the afternoon", fr: "l'après-midi", tags: ["afternoon", "daylight"] },
  { en: "at golden hour", fr: "à l'heure dorée", tags: ["golden hour", "warm light"] },
  { en: "at sunset", fr: "au coucher du soleil", tags: ["sunset", "evening"] },
  { en: "in the evening", fr: "le soir", tags: ["evening"] },
  { en: "at night", fr: "la nuit", tags: ["night", "dark"] },
  { en: "under the rain", fr: "sous la pluie", tags: ["rain", "weather"] },
  { en: "in the fog", fr: "dans le brouillard", tags: ["fog", "weather"] },
];

export const STYLES: Phrase[] = [
  { en: "", fr: "", tags: [], weight: 6 },
  { en: "watercolor", fr: "aquarelle", tags: ["watercolor", "painting"] },
  { en: "oil painting", fr: "peinture à l'huile", tags: ["oil painting", "painting"] },
  {
    en: "black and white photograph",
    fr: "photographie en noir et blanc",
    tags: ["black and white", "photo"],
  },
  { en: "vintage photograph", fr: "photographie ancienne", tags: ["vintage", "photo"] },
  { en: "aerial view", fr: "vue aérienne", tags: ["aerial", "drone"] },
];
