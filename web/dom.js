// Small DOM helpers. Text from the server is always inserted as text nodes, never as HTML.

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const RANKS = "23456789TJQKA";
const SUITS = "cdhs";
const SUIT_SIGNS = { c: "♣", d: "♦", h: "♥", s: "♠" };

// A card is rank * 4 + suit (engine/cards.py); null draws a card face down.
export function cardNode(card) {
  if (card === null) return el("span", { class: "card back" }, "🂠");
  const suit = SUITS[card % 4];
  // A face: the rank in its corner and the suit's sign in the middle, as printed cards are (style.css draws the
  // hero's as a card, the others' as compact as a seat needs); the text still reads "A♠".
  return el(
    "span",
    { class: `card suit-${suit}${suit === "h" || suit === "d" ? " red" : ""}` },
    el("span", { class: "rank" }, RANKS[Math.floor(card / 4)]),
    el("span", { class: "sign" }, SUIT_SIGNS[suit]),
  );
}

export const chips = (n) => Number(n).toLocaleString("en");
export const money = (cents) => `$${(cents / 100).toLocaleString("en", { minimumFractionDigits: 2 })}`;

export async function api(path, { method = "GET", body, token } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(readable(data) || `${method} ${path}: ${response.status}`);
  return data;
}

// A refused request in a person's words: a malformed field is named, never shown in the validator's wording.
export function readable({ error, message }) {
  if (error !== "bad_request" || !message) return message;
  const field = (message.match(/at `\$\.([\w.]+)/) || [])[1];
  const most = message.match(/length <= (\d+)/);
  if (field && most) return `${field}: at most ${most[1]} characters`;
  if (field && /length >= 1/.test(message)) return `${field}: required`;
  return field ? `${field}: not a valid value` : "That request was not valid; nothing changed.";
}

// A place as it is said: 1st, 2nd, 3rd, 4th ... 11th, 12th, 13th ... 21st.
export const ordinal = (n) => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
};
