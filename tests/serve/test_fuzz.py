"""Every route, fed generated input (Hypothesis): malformed paths, numbers, JSON, headers and
dates get a 4xx with a one-line ``{"error": ...}``, never a 500; and a real 500 (a bug) is
logged with its request id, boundedly however often it happens."""

from __future__ import annotations

import io
import json
import logging
import os
import re
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from serve import crashes
from serve.crashes import CrashLog
from tests.serve.test_api import bearer, participant
from tests.serve.test_organiser import server  # noqa: F401 - the fixture (with the pages)

#: Examples per fuzz test: the four take about 10 s together (2-core machine). A longer hunt:
#: FUZZ_EXAMPLES=5000 pytest tests/serve/test_fuzz.py.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "250"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

#: Digits that are not ASCII ("²" passes str.isdigit, not int()), and other odd numbers.
ODD_DIGITS = ["²", "٣", "①", "𝟗", "߀", "¹²", "0", "-1", "+1", "1_0", " 1", "1e3", "0x1"]

segments = st.one_of(
    st.text(max_size=30),
    st.sampled_from(ODD_DIGITS),
    st.integers(min_value=0, max_value=10 ** 30).map(str),
    st.integers(min_value=4300, max_value=6000).map(lambda n: "9" * n),
    st.sampled_from(["..", ".", "%2e%2e", "..%2f..%2fetc%2fpasswd", "%00", "%FF", "%C2%B2",
                     "%", "%zz", "%%", "a%2Fb", "~", "\\..\\", "index.html", "bots.html"]),
    st.binary(max_size=12).map(lambda b: "".join(f"%{x:02X}" for x in b)),
)
#: A path segment as sent: whatever it is, in one piece of a URL's path (its own percent
#: escapes, valid or not, as they are).
sent = segments.map(lambda s: quote(s, safe="%"))
game_names = st.one_of(
    st.builds(lambda d: f"game-{d}.html", st.one_of(st.sampled_from(ODD_DIGITS),
                                                     st.integers(0, 10 ** 30).map(str),
                                                     st.integers(13, 6000).map(lambda n: "9" * n),
                                                     st.text(max_size=8))
             ).map(lambda s: quote(s, safe="")),
    sent)

GET_TEMPLATES = ["/games/{}", "/final/games/{}", "/bots/{}", "/final/bots/{}", "/assets/{}",
                 "/final/assets/{}", "/api/bots/{}/log", "/{}", "/final/{}", "/starter/{}",
                 "/docs/{}", "/api/{}", "/{}/index.html"]
POST_TEMPLATES = ["/api/bots/{}/retire", "/api/participants/{}/retire",
                  "/api/participants/{}/ban", "/api/participants/{}/token", "/api/{}"]
JSON_ROUTES = ["/api/participants", "/api/season", "/api/final"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
dates = st.one_of(
    st.text(max_size=30),
    st.datetimes().map(lambda d: d.isoformat()),
    st.builds(lambda y, sign, h, m: f"{y:04d}-12-31T23:59{sign}{h:02d}:{m:02d}",
              st.sampled_from([1, 2, 1970, 9999]), st.sampled_from("+-"),
              st.integers(0, 23), st.integers(0, 59)),
    st.sampled_from(["9999-12-31T23:59-23:59", "0001-01-01T00:00+23:59", "0001-01-01",
                     "9999-12-31", "2025-02-30T00:00", "2025-06-01T25:00", "T", "--"]),
)
known_bodies = st.one_of(
    st.fixed_dictionaries({"name": json_values | st.text(max_size=50)}),
    st.fixed_dictionaries({"deadline": json_values | dates},
                          optional={"past": json_values}),
    st.fixed_dictionaries({"games": json_values | st.integers()},
                          optional={"schedule": json_values}),
)
raw_bodies = st.one_of(
    known_bodies.map(lambda b: json.dumps(b).encode()),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.integers(1, 70_000).map(lambda n: b"[" * n + b"]" * n),          # deep (to 70,000)
    st.integers(1, 40_000).map(lambda n: b'{"a":' * n + b"1" + b"}" * n),
    st.integers(4000, 30_000).map(lambda n: b'{"games": ' + b"7" * n + b"}"),   # huge numbers
    st.sampled_from([b'{"games": 1e999}', b'{"games": -1e999}', b'{"games": NaN}',
                     b'{"deadline": "9999-12-31T23:59-23:59"}', b"", b"null", b"\xff\xfe",
                     b'{"name": "\\ud800"}', b'{"a": 1, "a": 2}', b"{" * 10, b"7" * 5000]),
    st.binary(max_size=64),
)
auths = st.one_of(
    st.sampled_from(["", "Bearer", "Bearer ", "bearer x", "Basic abc", "Bearer " + "x" * 5000,
                     "Bearer \u00e9\u00e8", "Bearer %00", "ORGANISER", "PARTICIPANT"]),
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40),
)


def _check(reply) -> None:
    """No 5xx; an error is one line of JSON: ``{"error": "..."}`` (or, for an upload that
    failed validation, INTERFACES.md's 422 with the report)."""
    assert reply.status_code < 500, (reply.request.url, reply.status_code, reply.text[:300])
    if reply.status_code >= 400:
        assert b"\n" not in reply.content.strip(), reply.content[:300]
        body = reply.json()
        if reply.status_code == 422 and set(body) == {"name", "version", "validation"}:
            assert body["validation"]["ok"] is False and body["version"] is None
            return
        assert set(body) == {"error"} and isinstance(body["error"], str), body
        assert "\n" not in body["error"] and "Traceback" not in body["error"]


def _headers(client, auth: str) -> dict[str, bytes]:
    """The Authorization header (its bytes as UTF-8: a client may send any)."""
    auth = {"ORGANISER": f"Bearer {client.organiser}",
            "PARTICIPANT": f"Bearer {client.alice}"}.get(auth, auth)
    return {"Authorization": auth.encode()} if auth else {}


@pytest.fixture
def fuzzed(server):  # noqa: F811 - the fixture imported above
    server.follow_redirects = False
    server.alice = participant(server, "alice")
    return server


@FUZZ
@given(template=st.sampled_from(GET_TEMPLATES), segment=st.one_of(game_names, sent),
       auth=auths)
def test_any_path_is_answered_without_a_500(fuzzed, template, segment, auth):
    headers = _headers(fuzzed, auth)
    _check(fuzzed.get(template.format(segment), headers=headers))
    _check(fuzzed.post(POST_TEMPLATES[len(segment) % len(POST_TEMPLATES)].format(segment),
                       headers=headers))


@FUZZ
@given(route=st.sampled_from(JSON_ROUTES), body=raw_bodies, auth=auths,
       kind=st.sampled_from(["application/json", "text/plain", "multipart/form-data", ""]))
def test_any_json_body_is_answered_without_a_500(fuzzed, route, body, auth, kind):
    headers = {**_headers(fuzzed, auth), **({"Content-Type": kind.encode()} if kind else {})}
    _check(fuzzed.post(route, content=body, headers=headers))


@FUZZ
@given(deadline=dates, past=st.one_of(st.booleans(), json_values))
def test_any_deadline_is_answered_without_a_500(fuzzed, deadline, past):
    body = json.dumps({"deadline": deadline, "past": past}).encode()   # NaN, Infinity too
    reply = fuzzed.post("/api/season", content=body, headers=bearer(fuzzed.organiser))
    _check(reply)
    assert reply.status_code in (200, 400), reply.text


@FUZZ
@given(fields=st.dictionaries(st.sampled_from(["name", "token", "other"]),
                              st.text(max_size=60), max_size=3),
       filename=st.one_of(st.text(max_size=40), st.sampled_from(["../../x.py", "a.zip",
                                                                  "b.tar.gz", ".py", "²"])),
       data=st.binary(max_size=200), auth=auths)
@example(fields={}, filename="x.py", data=b"0", auth="PARTICIPANT")    # validated: 422
def test_any_upload_is_answered_without_a_500(fuzzed, fields, filename, data, auth):
    reply = fuzzed.post("/api/bots", headers=_headers(fuzzed, auth), data=fields,
                        files={"file": (filename, data, "text/x-python")})
    _check(reply)


def test_the_reported_inputs_are_4xx(fuzzed):
    """The inputs found answering 500 from outside."""
    for path in ("/games/game-%C2%B2.html", "/games/game-" + "9" * 5000 + ".html",
                 "/final/games/game-%C2%B2.html"):
        reply = fuzzed.get(path)
        assert reply.status_code == 404, path
        _check(reply)
    deep = b"[" * 30_000 + b"]" * 30_000                   # 60 KB: under the 64 KiB cap
    reply = fuzzed.post("/api/participants", content=deep, headers=bearer(fuzzed.organiser))
    assert reply.status_code == 400
    _check(reply)
    reply = fuzzed.post("/api/season", json={"deadline": "9999-12-31T23:59-23:59"},
                        headers=bearer(fuzzed.organiser))
    assert reply.status_code == 400 and "out of range" in reply.json()["error"]


# ---------------------------------------------------------------------- real errors, logged


#: What 200 failing requests may add to the log: one traceback and SHORT_LINES short lines.
CRASH_LOG_BOUND = 16 << 10


def test_a_real_500_is_logged_once_with_its_request_id(fuzzed, serve_log, monkeypatch):
    def broken() -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(fuzzed.comp, "ranking", broken)
    replies = [fuzzed.get("/api/ranking") for _ in range(200)]
    assert {r.status_code for r in replies} == {500}
    for reply in replies:
        _check_500(reply)
    text = serve_log.getvalue()
    first = replies[0].json()["error"].split()[2]
    assert text.count("Traceback") == 1 and "secret internals" in text
    assert f"error {first} serving GET /api/ranking: RuntimeError" in text
    assert text.index(first) < text.index("Traceback")       # the id, then its traceback
    assert len(text.encode()) < CRASH_LOG_BOUND, len(text.encode())
    records = re.findall(r"^error [0-9a-f]{12} serving", text, re.M)
    assert len(records) == 1 + crashes.SHORT_LINES          # the rest only counted


def _check_500(reply) -> None:
    message = reply.json()["error"]
    assert message.startswith("internal error ") and "secret" not in message
    assert "\n" not in message and set(reply.json()) == {"error"}


def test_a_repeated_error_is_traced_again_after_the_window_with_a_count():
    stream = io.StringIO()
    logger = logging.getLogger("tests.crashes")
    logger.propagate = False
    logger.addHandler(logging.StreamHandler(stream))
    now = [1000.0]
    crash = CrashLog(logger, window=60, short_lines=2, clock=lambda: now[0])

    def fail() -> None:
        try:
            raise ValueError("boom")
        except ValueError as err:
            crash.failed("GET", "/x", err)

    for _ in range(50):
        fail()
    assert stream.getvalue().count("Traceback") == 1
    assert stream.getvalue().count("the traceback is error") == 2
    now[0] += 61
    fail()
    text = stream.getvalue()
    assert text.count("Traceback") == 2 and "47 more failures like it were not logged" in text
