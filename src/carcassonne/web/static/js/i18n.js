// Message catalogues (static/i18n/<lang>.json) and the language switch (kept in localStorage).

export const LANGUAGES = { en: "English", fr: "Français", ro: "Română" };
const STORAGE_KEY = "carcassonne.lang";

let messages = {};
let fallback = {};
let current = "en";

async function fetchCatalogue(lang) {
  const response = await fetch(`/static/i18n/${lang}.json`);
  if (!response.ok) throw new Error(`cannot load language ${lang}`);
  return response.json();
}

/** The language to start with: the saved choice, else the browser's, else English. */
export function preferredLanguage() {
  const saved = localStorage.getItem(STORAGE_KEY);
  if (saved && saved in LANGUAGES) return saved;
  const browser = (navigator.language || "en").slice(0, 2);
  return browser in LANGUAGES ? browser : "en";
}

export async function setLanguage(lang) {
  if (!(lang in LANGUAGES)) lang = "en";
  if (!Object.keys(fallback).length) fallback = await fetchCatalogue("en");
  messages = lang === "en" ? fallback : await fetchCatalogue(lang);
  current = lang;
  localStorage.setItem(STORAGE_KEY, lang);
  document.documentElement.lang = lang;
}

export function language() {
  return current;
}

/** A placeholder, with the French "que " or "de " just before it (captured so it can elide). */
const PLACEHOLDER = /((?<!\p{L})(?:qu|d)e )?\{(\w+)\}/giu;
/** A filled-in word French elides "que"/"de" before. An h is left alone: whether it is mute
 * ("d'Hélène") or aspirated ("de Hugo") cannot be told from the spelling. */
const FRENCH_VOWEL_START = /^[aeiouyàâäéèêëîïôöùûüÿæœ]/iu;

/** French "que Ana" is "qu'Ana" and "de Ana" "d'Ana": the catalogue cannot write it, the name
 * (a seat's, chosen by a player) is known only when the message is filled in. */
function frenchElide(word, value) {
  return word && current === "fr" && FRENCH_VOWEL_START.test(value) ? `${word.slice(0, -2)}'${value}` : word + value;
}

/** Translate `key`, filling {placeholders} from `params`; unknown keys show themselves. */
export function t(key, params = {}) {
  const text = messages[key] ?? fallback[key];
  if (text === undefined) return key;
  return String(text).replace(PLACEHOLDER, (whole, word = "", name) =>
    name in params ? frenchElide(word, String(params[name])) : whole);
}

/** `keyBase.one`, `.few` or `.other` filled with {n}, as the page's language says n of a thing:
 * Romanian "1 piesă", "7 piese" but "20 de piese"; French "0 tuile"; English "0 tiles". A plural
 * category the catalogues have no form for (French "many", for millions) takes `.other`. */
export function plural(keyBase, n) {
  const form = new Intl.PluralRules(current).select(n);
  return t(`${keyBase}.${form === "one" || form === "few" ? form : "other"}`, { n });
}

/** Whether the screen is touched rather than clicked (a phone, a tablet). */
const touchScreen = () => window.matchMedia("(pointer: coarse)").matches;

/** An instruction that says how to point: `key` says "click", `key_touch` "tap" for a finger. */
export function pointerText(key, params = {}) {
  return t(touchScreen() ? `${key}_touch` : key, params);
}

/** Whether the catalogue has `key` (for optional, more specific messages). */
export function has(key) {
  return key in messages || key in fallback;
}

/** Fill every [data-i18n] element under `root` with its translation. */
export function translatePage(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
}
