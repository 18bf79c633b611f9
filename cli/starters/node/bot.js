// {{name}}: a Sushi Go! bot written in JavaScript (Node.js).
//
// The arena starts `node bot.js` once per game, in this folder, and talks JSON lines on its
// stdin and stdout (docs/bots.md, "Any language"; INTERFACES.md has the contract):
//   {"type": "new_game", "obs": OBS, "seed": N}   once, before the first pick
//   {"type": "pick", "obs": OBS}                  answer one line: {"pick": "tempura"}
//                                                 or {"pick": ["wasabi", "squid_nigiri"]}
//   {"type": "end_game", "result": RESULT}        no answer; then stdin ends
// Anything else on stdout is a protocol fault: debug with console.error (the bot's log).
//
// This starter picks greedily, as `arena new-bot` writes a Python bot: each card's rough worth
// for the cards already in front of it, ties broken by its own random draws (seeded by
// new_game's seed, so games replay the same).
"use strict";

const readline = require("readline");

const DUMPLING_POINTS = [0, 1, 3, 6, 10, 15];
const NIGIRI = { egg_nigiri: 1, salmon_nigiri: 2, squid_nigiri: 3 };

// xorshift32: reproducible random draws, seeded by new_game.
let state = 2463534242;
function random() {
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state / 4294967296;
}

function count(cards, name) {
  return cards.filter((c) => c === name).length;
}

// A rough worth of `card` for my cards of this round (`mine`).
function value(card, mine, picksLeft) {
  if (card === "tempura") return count(mine, "tempura") % 2 ? 5 : 2;
  if (card === "sashimi") return count(mine, "sashimi") % 3 === 2 ? 10 : (picksLeft >= 2 ? 3 : 0);
  if (card === "dumpling") {
    const n = Math.min(count(mine, "dumpling"), 4);
    return DUMPLING_POINTS[n + 1] - DUMPLING_POINTS[n];
  }
  if (card in NIGIRI) {
    const openWasabi = count(mine, "wasabi") > mine.filter((c) => c in NIGIRI).length;
    return NIGIRI[card] * (openWasabi ? 3 : 1);
  }
  if (card === "wasabi") return picksLeft >= 3 ? 3 : 0;
  if (card === "maki1" || card === "maki2" || card === "maki3") return Number(card.slice(-1));
  if (card === "pudding") return 2;
  return 0; // chopsticks, soy_sauce: worth nothing in this simple bot
}

function pick(obs) {
  const hand = obs.hand;
  const mine = obs.tableaux[obs.seat].slice();
  const picksLeft = hand.length - 1;
  // Distinct cards in hand order, best first; random draws break ties.
  const ranked = [...new Set(hand)]
    .map((card) => [value(card, mine, picksLeft) + random(), card])
    .sort((a, b) => b[0] - a[0])
    .map(([, card]) => card);
  const best = ranked[0];
  if (obs.can_use_chopsticks && ranked.length > 1) {
    const second = ranked[1];
    if (value(second, mine.concat([best]), picksLeft - 1) >= 5) return [best, second];
  }
  return best;
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "new_game") {
    // Any integer, folded into 32 bits (never 0, xorshift's fixed point).
    let folded = 0;
    for (const d of String(message.seed)) if (d >= "0" && d <= "9") folded = (folded * 10 + Number(d)) % 4294967291;
    state = folded || 2463534242;
  } else if (message.type === "pick") {
    process.stdout.write(JSON.stringify({ pick: pick(message.obs) }) + "\n");
  } // end_game: nothing to answer
});
