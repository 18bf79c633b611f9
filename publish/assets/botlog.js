// The live site's bot pages (arena serve): shows the bot's log and fault details to its author.
// The token goes as "Authorization: Bearer" (never a cookie); everything shown is set as text.
"use strict";
(function () {
  const form = document.getElementById("botlog");
  if (!form) return;
  const status = document.getElementById("botlog-status");
  const out = document.getElementById("botlog-out");
  const el = (tag, text) => {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = String(text);
    return node;
  };
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = String(new FormData(form).get("token") || "").trim();
    status.textContent = "Reading…";
    out.hidden = true;
    const body = await window.arenaCall(form.dataset.api, token, status);
    if (body === null) return;
    status.textContent = "";
    out.replaceChildren();
    out.append(el("h3", "Faults (" + body.faults_total + ")"));
    if (body.faults.length) {
      const table = el("table");
      const head = el("tr");
      for (const name of ["game", "version", "round", "turn", "kind", "detail"]) {
        head.append(el("th", name));
      }
      table.append(head);
      for (const f of body.faults) {
        const row = el("tr");
        const where = f.league === "final" ? "final " + f.game : f.game;
        for (const value of [where, f.version, f.round, f.turn, f.kind, f.detail]) {
          row.append(el("td", value));
        }
        table.append(row);
      }
      out.append(table);
      // The latest fault of each kind on a pick: what the bot saw, and how to ask it again.
      for (const f of body.faults) {
        if (!f.again) continue;
        const where = (f.league === "final" ? "final game " : "game ") + f.game;
        out.append(el("h4", f.kind + " in " + where + ", round " + f.round + ", turn " +
          f.turn));
        const seen = el("pre", (f.observation || []).join("\n"));
        seen.className = "report";
        out.append(seen);
        const name = f.again.split(" ")[3];
        const save = el("a", name);
        save.download = name;
        save.href = URL.createObjectURL(new Blob([JSON.stringify(f.record, null, 1) + "\n"],
          {type: "application/json"}));
        const line = el("p", "Save the game's record, ");
        line.append(save, document.createTextNode(", then ask your bot again there:"));
        out.append(line);
        const command = el("pre", f.again);
        command.className = "report";
        out.append(command);
        if (f.log && f.log.length) {
          out.append(el("p", "Its log in that game (the last " + f.log.length + " lines):"));
          const lines = el("pre", f.log.join("\n"));
          lines.className = "report";
          out.append(lines);
        }
      }
    } else {
      out.append(el("p", "No faults."));
    }
    const log = body.log;
    out.append(el("h3", "Its log" + (log.from ? " (the last " + (log.bytes - log.from) +
      " of " + log.bytes + " bytes)" : "")));
    const text = el("pre", log.text || "Nothing printed yet.");
    text.className = "report";
    out.append(text);
    out.hidden = false;
  });
})();
