"""A value rebuilt now and then: built again only when its key changed, never more often than
its share of the time allows, and the previous value served while it is rebuilt."""

from __future__ import annotations

import threading
import time

from serve import cache
from serve.cache import Rebuilt


def test_it_is_rebuilt_when_the_key_changes_and_not_more_often_than_its_share(monkeypatch):
    key, built = [0], []

    def build():
        built.append(key[0])
        time.sleep(0.05)
        return f"value {key[0]}"

    monkeypatch.setattr(cache, "SHARE", 0.5)          # 0.05 s to build: checked every 0.1 s
    value = Rebuilt(build, lambda: key[0], min_age=0.0)
    assert value.get() == "value 0" and value.get() == "value 0" and built == [0]
    assert value._age >= 0.1                          # twice the time it took
    key[0] = 1
    time.sleep(value._age + 0.02)
    assert value.get() == "value 1"                   # changed, and checked long enough ago
    key[0] = 2
    assert value.get() == "value 1"                   # checked just now
    time.sleep(value._age + 0.02)
    assert value.get() == "value 2" and built == [0, 1, 2]


def test_the_previous_value_is_served_while_one_request_rebuilds_it():
    key, release = [0], threading.Event()

    def build():
        if key[0]:
            release.wait(10)
        return key[0]

    value = Rebuilt(build, lambda: key[0], min_age=0.0)
    assert value.get() == 0
    key[0] = 1
    found = []
    slow = threading.Thread(target=lambda: found.append(value.get()))
    slow.start()
    time.sleep(0.1)
    start = time.monotonic()
    # No waiting: the rebuild holds on until released (10 s); a busy machine's pause is less.
    assert value.get() == 0 and time.monotonic() - start < 5
    release.set()
    slow.join()
    assert found == [1] and value.get() == 1
