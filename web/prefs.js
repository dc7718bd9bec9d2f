// The player's own settings, kept in this browser: bet presets, the 4-colour deck, sounds, muted chatters.

const KEY = "mttsim:prefs";
const DEFAULTS = { presets: "50%, 75%, pot, all-in", fourColour: false, sounds: false, muted: [] };

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

// A short tone when it is the player's turn, only if they turned sounds on (off by default).
let audio = null;
export function beep(frequency = 660) {
  if (!prefs().sounds) return;
  try {
    audio = audio || new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = frequency;
    gain.gain.value = 0.05;
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.12);
  } catch {
    /* no audio device: silence */
  }
}
