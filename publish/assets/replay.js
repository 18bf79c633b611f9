/* arena publish: the replay viewer. Steps through the frames embedded in the page as JSON
   (one frame a turn: hands before the picks, the picks, tableaux after them; then the final
   result). Buttons, the slider, and the keys Left/Right/Home/End move; #r2t3 or #end in the
   address opens a given turn. */
(function () {
  "use strict";
  var game = JSON.parse(document.getElementById("game-data").textContent);
  var frames = game.frames;
  var dummySeat = game.dummy ? game.dummy_seat : -1;   // the engine's DUMMY_SEAT, in the data
  var last = frames.length;            // step `last` is the final result
  var step = 0;
  var LABELS = {
    tempura: "Tempura", sashimi: "Sashimi", dumpling: "Dumpling", maki1: "Maki 1",
    maki2: "Maki 2", maki3: "Maki 3", salmon_nigiri: "Salmon nigiri",
    squid_nigiri: "Squid nigiri", egg_nigiri: "Egg nigiri", pudding: "Pudding",
    wasabi: "Wasabi", chopsticks: "Chopsticks", soy_sauce: "Soy sauce"
  };
  var NIGIRI = { salmon_nigiri: 1, squid_nigiri: 1, egg_nigiri: 1 };
  var $ = function (id) { return document.getElementById(id); };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function card(name, extra) {
    var c = el("span", "card " + name + (extra ? " " + extra : ""), LABELS[name] || name);
    c.setAttribute("data-card", name);
    return c;
  }
  function cards(list, marks) {
    var box = el("div", "cardlist");
    list.forEach(function (name, i) { box.appendChild(card(name, marks ? marks[i] : "")); });
    if (!list.length) box.appendChild(el("span", "dim", "\u2014"));
    return box;
  }
  /* Marks the picked cards in a hand (each picked card once); `forDummy` are the cards the
     controller gave the dummy from this hand. */
  function pickedMarks(hand, pick, forDummy) {
    var left = pick.slice(), dummy = (forDummy || []).slice();
    return hand.map(function (c) {
      var i = left.indexOf(c);
      if (i >= 0) { left.splice(i, 1); return "picked"; }
      i = dummy.indexOf(c);
      if (i >= 0) { dummy.splice(i, 1); return "picked for-dummy"; }
      return "";
    });
  }
  /* Marks nigiri placed on a wasabi (worth triple). */
  function wasabiMarks(tableau) {
    var open = 0;
    return tableau.map(function (c) {
      if (c === "wasabi") { open++; return ""; }
      if (NIGIRI[c] && open > 0) { open--; return "on-wasabi"; }
      return "";
    });
  }
  function seatName(s) {
    var name = game.players[s];
    var link = game.links && game.links[s];
    if (!link) return el("span", null, name);
    var a = el("a", null, name);
    a.href = link;
    return a;
  }
  function direction(r) {
    if (game.dummy) return "hands swap between the players";
    return game.directions[r - 1] > 0 ? "hands pass to the next seat (seat i \u2192 i+1)"
                                      : "hands pass to the previous seat (seat i \u2192 i\u22121)";
  }
  function faultText(f) {
    return f.kind + (f.detail ? ": " + f.detail : "");
  }

  /* The analysis's mark on a pick (arena tournament --analyse): its cost against the best. */
  function costNote(f, s) {
    var cost = f.costs[s];
    if (cost === 0) return el("span", "costnote best", "the best pick");
    var best = f.best[s].map(function (c) { return LABELS[c] || c; }).join(" + ");
    var costly = cost >= game.analysis.costly ? " costly" : "";
    return el("span", "costnote" + costly, "cost " + cost.toFixed(2) + " points against " + best);
  }
  function renderTurn(f) {
    var round = f.round, n = game.frames.filter(function (x) { return x.round === round; }).length;
    $("where").textContent = "Round " + round + " \u00b7 Turn " + f.turn + " of " + n;
    var banner = $("banner");
    banner.textContent = f.round_end
      ? "End of round " + round + ": the points below are the round's score."
      : "Everyone picks at once; " + direction(round) + ".";
    var table = el("table", "data board");
    var head = table.createTHead().insertRow();
    ["seat", "bot", "hand before the pick", "picked", "in front, after the pick",
     f.round_end ? "round points" : "points if the round ended now", "puddings", "earlier rounds"]
      .forEach(function (h, i) {
        var th = el("th", i >= 1 && i <= 4 ? "text" : null, h);
        head.appendChild(th);
      });
    var body = table.createTBody();
    var faultsBySeat = {};
    f.faults.forEach(function (i) {
      var x = game.faults[i];
      (faultsBySeat[x.seat] = faultsBySeat[x.seat] || []).push(x);
    });
    game.players.forEach(function (_, s) {
      var row = body.insertRow();
      if (f.controller === s) row.className = "ctrl";
      row.insertCell().textContent = String(s);
      var who = row.insertCell(); who.className = "bot text"; who.appendChild(seatName(s));
      var hand = row.insertCell(); hand.className = "cards-cell";
      if (s === dummySeat) {
        hand.appendChild(cards(f.hands[s]));
        hand.appendChild(el("span", "breakdown", "the dummy's face-down pile"));
      } else {
        var given = game.dummy && f.controller === s ? f.picks[dummySeat] : [];
        hand.appendChild(cards(f.hands[s], pickedMarks(f.hands[s], f.picks[s], given)));
      }
      var pick = row.insertCell(); pick.className = "cards-cell pick-col";
      pick.appendChild(cards(f.picks[s]));
      if (f.picks[s].length === 2) pick.appendChild(el("span", "breakdown", "chopsticks used"));
      if (f.costs && f.costs[s] !== null && f.costs[s] !== undefined) pick.appendChild(costNote(f, s));
      (faultsBySeat[s] || []).forEach(function (x) {
        pick.appendChild(el("span", "faultnote", "fault \u2014 " + faultText(x)
          + " (the arena played the card shown)"));
      });
      var tab = row.insertCell(); tab.className = "cards-cell";
      tab.appendChild(cards(f.tableaux[s], wasabiMarks(f.tableaux[s])));
      var pts = row.insertCell();
      pts.appendChild(el("span", "points", f.points[s]));
      if (f.breakdown) {
        var parts = Object.keys(f.breakdown[s]).map(function (k) {
          return k.replace("_", " ") + " " + f.breakdown[s][k];
        });
        if (parts.length) pts.appendChild(el("span", "breakdown", parts.join(", ")));
      }
      row.insertCell().textContent = String(f.puddings[s]);
      row.insertCell().textContent = String(f.scores[s]);
    });
    return table;
  }

  function renderFinal() {
    var res = game.result;
    $("where").textContent = "Final scores";
    $("banner").textContent = "Game over: round points plus pudding points; ties on score go to "
      + "the most puddings.";
    var table = el("table", "data board final");
    table.id = "final-scores";
    var head = table.createTHead().insertRow();
    ["place", "seat", "bot", "round 1", "round 2", "round 3", "puddings", "pudding points",
     "final score"].forEach(function (h, i) { head.appendChild(el("th", i === 2 ? "text" : null, h)); });
    var body = table.createTBody();
    var seats = game.players.map(function (_, s) { return s; });
    seats.sort(function (a, b) { return res.places[a] - res.places[b] || a - b; });
    seats.forEach(function (s) {
      var row = body.insertRow();
      row.setAttribute("data-seat", String(s));
      var place = row.insertCell(); place.className = "place" + (res.places[s] === 1 ? " place1" : "");
      place.textContent = String(res.places[s]);
      row.insertCell().textContent = String(s);
      var who = row.insertCell(); who.className = "bot text"; who.appendChild(seatName(s));
      res.round_points.forEach(function (p) { row.insertCell().textContent = String(p[s]); });
      row.insertCell().textContent = String(res.puddings[s]);
      row.insertCell().textContent = (res.pudding_points[s] > 0 ? "+" : "") + res.pudding_points[s];
      var total = row.insertCell(); total.className = "score"; total.textContent = String(res.scores[s]);
    });
    return table;
  }

  function show(n) {
    step = Math.max(0, Math.min(last, n));
    var board = $("board");
    board.textContent = "";
    board.appendChild(step === last ? renderFinal() : renderTurn(frames[step]));
    $("first").disabled = $("prev").disabled = step === 0;
    $("next").disabled = $("last").disabled = step === last;
    $("step").value = String(step);
    $("count").textContent = "step " + (step + 1) + " of " + (last + 1);
    document.body.setAttribute("data-step", String(step));
    var hash = step === last ? "#end" : "#r" + frames[step].round + "t" + frames[step].turn;
    try { history.replaceState(null, "", hash); } catch (e) { /* some file:// setups refuse */ }
  }
  function fromHash(hash) {
    var h = hash === undefined ? location.hash : hash;
    if (h === "#end") return last;
    var m = /^#r(\d+)t(\d+)$/.exec(h);
    if (!m) return 0;
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].round === +m[1] && frames[i].turn === +m[2]) return i;
    }
    return 0;
  }

  $("step").max = String(last);
  $("first").addEventListener("click", function () { show(0); });
  $("prev").addEventListener("click", function () { show(step - 1); });
  $("next").addEventListener("click", function () { show(step + 1); });
  $("last").addEventListener("click", function () { show(last); });
  $("step").addEventListener("input", function () { show(+this.value); });
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.tagName === "INPUT") return;
    var to = { ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: last }[e.key];
    if (to !== undefined) { e.preventDefault(); show(to); }
  });
  window.addEventListener("hashchange", function () { show(fromHash()); });
  /* A link to a turn (a fault's, a costly pick's) steps there itself: in a notebook the page
     is an iframe's srcdoc, where following "#r2t3" would load the notebook's address. */
  document.addEventListener("click", function (e) {
    var a = e.target && e.target.closest ? e.target.closest("a[href^='#']") : null;
    var href = a ? a.getAttribute("href") : "";
    if (href === "#end" || /^#r\d+t\d+$/.test(href)) { e.preventDefault(); show(fromHash(href)); }
  });
  show(fromHash());
})();
