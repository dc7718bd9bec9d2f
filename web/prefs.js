// The player's own settings, kept in this browser: bet presets, the 4-colour deck, sounds, muted chatters.

const KEY = "mttsim:prefs";
const DEFAULTS = { presets: "50%, 75%, pot, all-in", fourColour: false, sounds: false, clockSound: false, muted: [] };

export function prefs() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(KEY) || "{}") };
  } catch {
    return { ...DEFAULTS };
  }
}

export function setPref(name, value) {
  localStorage.setItem(KEY, JSON.stringify({ ...prefs(), [name]: value }));
  document.body.classList.toggle("four-colour", prefs().fourColour);
}

// Bet presets as the player typed them: "50%" of the pot (a pot-sized raise's share), "3bb" to three big blinds,
// "pot", "all-in". Each becomes a label and the street total it bets or raises to (the caller clamps it).
export function presets(text, { pot, call, maxBet, bigBlind, allIn }) {
  return String(text)
    .split(",")
    .map((token) => token.trim().toLowerCase())
    .filter(Boolean)
    .map((token) => {
      if (token === "pot") return ["Pot", maxBet + pot + call];
      if (token === "all-in" || token === "allin") return ["All-in", allIn];
      const share = token.match(/^(\d+(?:\.\d+)?)%$/);
      if (share) return [`${share[1]}%`, maxBet + ((pot + call) * Number(share[1])) / 100];
      const blinds = token.match(/^(\d+(?:\.\d+)?)\s*bb$/);
      if (blinds) return [`${blinds[1]} BB`, Number(blinds[1]) * bigBlind];
      return null;
    })
    .filter(Boolean);
}

// A tone of `frequency` Hz for `seconds`, `after` seconds from now.
let audio = null;
function tone(frequency, seconds = 0.12, after = 0, loudness = 0.05) {
  try {
    audio = audio || new AudioContext();
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.frequency.value = frequency;
    gain.gain.value = loudness;
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start(audio.currentTime + after);
    oscillator.stop(audio.currentTime + after + seconds);
  } catch {
    /* no audio device: silence */
  }
}

// A short tone when it is the player's turn, only if they turned sounds on (off by default).
export function beep(frequency = 660) {
  if (prefs().sounds) tone(frequency);
}

// The clock screen's chime at a level's change and a break's start and end, loud enough for a room: rising for
// play, falling for a break; only if the director ticked it (off by default: a screen that sounds unasked is a
// nuisance, and a browser plays nothing before a click on the page anyway).
export function chime(rising = true) {
  if (!prefs().clockSound) return;
  const notes = rising ? [523, 659, 784] : [784, 659, 523];
  notes.forEach((frequency, i) => tone(frequency, 0.35, i * 0.3, 0.2));
}
