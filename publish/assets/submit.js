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
    const body = await window.arenaCall(form.getAttribute("action"), token, status,
                                        { method: "POST", body: data });
    if (body === null) return;
    status.textContent = body.validation.ok
      ? "Entered: " + body.name + ", version " + body.version + "."
      : "Not entered: " + body.name + " failed validation.";
    report.textContent = body.validation.report;
    report.hidden = false;
  });
})();
