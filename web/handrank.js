// What a hand is ("Two pair, Kings and Fives"), for the player's own label and the showdown's winner: the best five
// of up to seven cards. A card is rank * 4 + suit, rank 0 for a deuce to 12 for an ace (engine/cards.py).

const NAMES = ["Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack", "Queen", "King", "Ace"];
const PLURAL = [
  "Twos",
  "Threes",
  "Fours",
  "Fives",
  "Sixes",
  "Sevens",
  "Eights",
  "Nines",
  "Tens",
  "Jacks",
  "Queens",
  "Kings",
  "Aces",
];

// The highest straight in a set of ranks (its top rank), or -1; the wheel (A-2-3-4-5) tops at the five.
function straightTop(ranks) {
  const has = new Set(ranks);
  for (let top = 12; top >= 3; top--) {
    const run = [0, 1, 2, 3, 4].map((k) => top - k);
    if (run.every((r) => has.has(r < 0 ? 12 : r))) return top;
  }
  return -1;
}

// The best hand in `cards` (two to seven of them): { rank: 0 (high card) .. 8 (straight flush), name }.
export function describeHand(cards) {
  if (!cards || cards.length < 2 || cards.some((c) => c === null || c === undefined)) return null;
  const ranks = cards.map((c) => Math.floor(c / 4));
  const bySuit = new Map();
  for (const c of cards) bySuit.set(c % 4, [...(bySuit.get(c % 4) || []), Math.floor(c / 4)]);
  const flush = [...bySuit.values()].find((suited) => suited.length >= 5);
  if (flush) {
    const top = straightTop(flush);
    if (top >= 0) return { rank: 8, name: top === 12 ? "Royal flush" : `Straight flush, ${NAMES[top]} high` };
  }
  const counts = new Map();
  for (const r of ranks) counts.set(r, (counts.get(r) || 0) + 1);
  const groups = [...counts].sort((a, b) => b[1] - a[1] || b[0] - a[0]); // [rank, count], biggest first
  const [first, second] = groups;
  if (first[1] === 4) return { rank: 7, name: `Four of a kind, ${PLURAL[first[0]]}` };
  if (first[1] === 3 && second && second[1] >= 2)
    return { rank: 6, name: `Full house, ${PLURAL[first[0]]} full of ${PLURAL[second[0]]}` };
  if (flush) return { rank: 5, name: `Flush, ${NAMES[Math.max(...flush)]} high` };
  const top = straightTop(ranks);
  if (top >= 0) return { rank: 4, name: `Straight, ${NAMES[top]} high` };
  if (first[1] === 3) return { rank: 3, name: `Three of a kind, ${PLURAL[first[0]]}` };
  if (first[1] === 2 && second && second[1] === 2)
    return { rank: 2, name: `Two pair, ${PLURAL[first[0]]} and ${PLURAL[second[0]]}` };
  if (first[1] === 2) return { rank: 1, name: `Pair of ${PLURAL[first[0]]}` };
  return { rank: 0, name: `${NAMES[Math.max(...ranks)]} high` };
}

// What a seat's cards shown at the showdown make with the board, or null when it showed none.
export const shownHand = (seat, board) =>
  seat && seat.shown && seat.shown.length ? describeHand([...seat.shown, ...board]) : null;
