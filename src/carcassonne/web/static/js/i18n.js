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

/** Translate `key`, filling {placeholders} from `params`; unknown keys show themselves. */
export function t(key, params = {}) {
  const text = messages[key] ?? fallback[key];
  if (text === undefined) return key;
  return String(text).replace(/\{(\w+)\}/g, (_, name) => (name in params ? String(params[name]) : `{${name}}`));
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
