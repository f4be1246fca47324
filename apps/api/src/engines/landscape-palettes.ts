import type { TimeOfDay, Weather } from "./landscape-scene.js";

export type Hsl = readonly [hue: number, saturation: number, lightness: number];

interface SkyPalette {
  zenith: Hsl;
  horizon: Hsl;
  /** The sun, or the moon at night; elevation 0 sits on the horizon, 1 at the top of the picture. */
  sun: { color: Hsl; elevation: number; glow: number };
  stars: number;
  /** How lit the land is, relative to full daylight. */
  daylight: number;
  water: Hsl;
}

/** One sky per time of day (TIMES). */
export const SKIES: Record<TimeOfDay, SkyPalette> = {
  sunrise: {
    zenith: [220, 45, 58],
    horizon: [28, 90, 76],
    sun: { color: [32, 100, 72], elevation: 0.06, glow: 0.5 },
    stars: 0,
    daylight: 0.72,
    water: [210, 40, 50],
  },
  morning: {
    zenith: [205, 65, 62],
    horizon: [195, 70, 88],
    sun: { color: [50, 100, 90], elevation: 0.5, glow: 0.2 },
    stars: 0,
    daylight: 0.95,
    water: [205, 55, 45],
  },
  afternoon: {
    zenith: [214, 72, 52],
    horizon: [200, 75, 84],
    sun: { color: [50, 100, 88], elevation: 0.78, glow: 0.15 },
    stars: 0,
    daylight: 1,
    water: [205, 55, 40],
  },
  sunset: {
    zenith: [255, 40, 38],
    horizon: [18, 92, 62],
    sun: { color: [16, 100, 58], elevation: 0.05, glow: 0.6 },
    stars: 0,
    daylight: 0.6,
    water: [15, 35, 38],
  },
  evening: {
    zenith: [235, 45, 20],
    horizon: [290, 30, 42],
    sun: { color: [48, 40, 86], elevation: 0.35, glow: 0.1 },
    stars: 30,
    daylight: 0.4,
    water: [235, 35, 22],
  },
  "golden hour": {
    zenith: [35, 55, 66],
    horizon: [40, 90, 74],
    sun: { color: [40, 100, 76], elevation: 0.16, glow: 0.55 },
    stars: 0,
    daylight: 0.85,
    water: [32, 45, 45],
  },
  night: {
    zenith: [230, 60, 8],
    horizon: [228, 45, 22],
    sun: { color: [50, 40, 90], elevation: 0.7, glow: 0.08 },
    stars: 90,
    daylight: 0.25,
    water: [218, 65, 12],
  },
  midnight: {
    zenith: [235, 70, 4],
    horizon: [232, 50, 12],
    sun: { color: [50, 30, 88], elevation: 0.85, glow: 0.05 },
    stars: 140,
    daylight: 0.15,
    water: [225, 70, 7],
  },
};

interface WeatherOverlay {
  skySaturation: number;
  /** How much light gets through: multiplies the lightness of sky, land and water. */
  light: number;
  /** 1: sun, moon and stars fully visible; 0: hidden behind the weather. */
  clearSky: number;
  clouds: { count: number; lightness: number; opacity: number };
  /** Opacity of the veil over the whole picture. */
  fog: number;
  rainStreaks: number;
  snowFlakes: number;
  hasLightning: boolean;
  /** 0–1: how much the land is whitened by snow. */
  snowCover: number;
  landSaturation: number;
}

/** One overlay per weather (WEATHERS). */
export const WEATHER_OVERLAYS: Record<Weather, WeatherOverlay> = {
  sunny: {
    skySaturation: 1,
    light: 1,
    clearSky: 1,
    clouds: { count: 2, lightness: 97, opacity: 0.6 },
    fog: 0,
    rainStreaks: 0,
    snowFlakes: 0,
    hasLightning: false,
    snowCover: 0,
    landSaturation: 1,
  },
  cloudy: {
    skySaturation: 0.45,
    light: 0.95,
    clearSky: 0.35,
    clouds: { count: 9, lightness: 84, opacity: 0.85 },
    fog: 0,
    rainStreaks: 0,
    snowFlakes: 0,
    hasLightning: false,
    snowCover: 0,
    landSaturation: 0.6,
  },
  foggy: {
    skySaturation: 0.25,
    light: 1.05,
    clearSky: 0.2,
    clouds: { count: 0, lightness: 85, opacity: 0 },
    fog: 0.55,
    rainStreaks: 0,
    snowFlakes: 0,
    hasLightning: false,
    snowCover: 0,
    landSaturation: 0.35,
  },
  rainy: {
    skySaturation: 0.3,
    light: 0.75,
    clearSky: 0,
    clouds: { count: 10, lightness: 55, opacity: 0.9 },
    fog: 0.12,
    rainStreaks: 160,
    snowFlakes: 0,
    hasLightning: false,
    snowCover: 0,
    landSaturation: 0.5,
  },
  thunderstorm: {
    skySaturation: 0.25,
    light: 0.45,
    clearSky: 0,
    clouds: { count: 12, lightness: 28, opacity: 0.95 },
    fog: 0,
    rainStreaks: 220,
    snowFlakes: 0,
    hasLightning: true,
    snowCover: 0,
    landSaturation: 0.4,
  },
  snowy: {
    skySaturation: 0.3,
    light: 1.15,
    clearSky: 0.25,
    clouds: { count: 6, lightness: 92, opacity: 0.8 },
    fog: 0.1,
    rainStreaks: 0,
    snowFlakes: 220,
    hasLightning: false,
    snowCover: 0.85,
    landSaturation: 0.15,
  },
};
