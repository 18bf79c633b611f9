// The live site's submission form (arena serve): sends the file to /api/bots with the token as
// "Authorization: Bearer" (never a cookie), and shows the validation report it answers with.
"use strict";
(function () {
  const form = document.getElementById("submit");
  if (!form) return;
  const status = document.getElementById("status");
  const report = document.getElementById("report");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const token = String(data.get("token") || "").trim();
    data.delete("token");
    if (!String(data.get("name") || "")) data.delete("name");
    status.textContent = "Validating in the sandbox…";
    report.hidden = true;
    let reply, body;
    try {
      reply = await fetch(form.getAttribute("action"), {
        method: "POST", body: data, headers: { Authorization: "Bearer " + token },
      });
      body = await reply.json();
    } catch (err) {
      status.textContent = "The server could not be reached: " + err;
      return;
    }
    if (body.error) {
      status.textContent = "Refused (" + reply.status + "): " + body.error;
      return;
    }
    status.textContent = body.validation.ok
      ? "Entered: " + body.name + ", version " + body.version + "."
      : "Not entered: " + body.name + " failed validation.";
    report.textContent = body.validation.report;
    report.hidden = false;
  });
})();
