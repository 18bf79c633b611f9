// The live site's calls to its API (arena serve): the token goes as "Authorization: Bearer"
// (never a cookie). arenaCall answers the reply's JSON, or null after saying in `status` why
// there is none (the server unreachable, or its refusal with the status code).
"use strict";
window.arenaCall = async function (url, token, status, init = {}) {
  let reply, body;
  try {
    reply = await fetch(url, {
      ...init, headers: { ...(init.headers || {}), Authorization: "Bearer " + token },
    });
    body = await reply.json();
  } catch (err) {
    status.textContent = "The server could not be reached: " + err;
    return null;
  }
  if (body.error) {
    status.textContent = "Refused (" + reply.status + "): " + body.error;
    return null;
  }
  return body;
};
