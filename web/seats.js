// What this browser remembers of the person: their seat's token per tournament (and more entries), the admin token.

const seatKey = (id) => `mttsim:seat:${id}`;
// More entries of the same person (multi-entry, rules.md M.50): each plays on its own page.
const moreKey = (id) => `mttsim:more:${id}`;

export const mySeat = (id) => JSON.parse(localStorage.getItem(seatKey(id)) || "null");
export const saveSeat = (id, seat) => localStorage.setItem(seatKey(id), JSON.stringify(seat));
export const forgetSeat = (id) => localStorage.removeItem(seatKey(id));
export const moreSeats = (id) => JSON.parse(localStorage.getItem(moreKey(id)) || "[]");
export const saveMore = (id, seat) => localStorage.setItem(moreKey(id), JSON.stringify([...moreSeats(id), seat]));
export const adminToken = () => localStorage.getItem("mttsim:admin") || "";
