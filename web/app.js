// mttsim in the browser: routes between the lobby and a tournament's page. Each page is its own module.

import { ClockPage } from "./clock.js";
import { Lobby } from "./lobby.js";
import { prefs } from "./prefs.js";
import { TournamentPage } from "./tournament.js";

const view = document.getElementById("view");
const statusLine = document.getElementById("status");
let current = null; // the page shown: { stop() }

function route() {
  if (current) current.stop();
  const clock = location.hash.match(/^#\/t\/([^/]+)\/clock$/);
  if (clock) {
    current = new ClockPage(view, statusLine, { id: clock[1] });
    return;
  }
  const match = location.hash.match(/^#\/t\/([^/]+)(?:\/table\/(\d+)|\/seat\/([^/]+))?/);
  current = match
    ? new TournamentPage(view, statusLine, {
        id: match[1],
        table: match[2] ? Number(match[2]) : null,
        entry: match[3] || null,
      })
    : new Lobby(view, statusLine);
}

document.body.classList.toggle("four-colour", prefs().fourColour);
window.addEventListener("hashchange", route);
route();
