"""Notebook 07, Real models: check_pick_client.

How every check behaves: agentlab/course/checks/__init__.py.
"""

from __future__ import annotations

import contextlib
import os

from ._common import Verdict, attempt, is_stub_result, short, still_a_stub


@contextlib.contextmanager
def _environment(**values):
    """Set (or, for None, remove) environment variables; restore them all afterwards."""
    from unittest import mock

    with mock.patch.dict(os.environ):
        for key, value in values.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        yield


@contextlib.contextmanager
def _no_network():
    """Any real HTTP request fails at once: a check must never reach an API."""
    from unittest import mock

    import httpx

    def refuse(self, request):
        raise httpx.ConnectError("the exercise check sends nothing over the network",
                                 request=request)

    with mock.patch.object(httpx.HTTPTransport, "handle_request", refuse):
        yield


FAKE_KEY = "sk-fake-key-for-the-check-0000000000"
LOCAL_URL = "http://localhost:11434/v1"
OPENAI_URL = "https://api.openai.com/v1"  # where the SDK sends a request when no base URL is set
EMPTY_KEY = ("an empty key is no key (test the value, os.environ.get('OPENAI_API_KEY'), not "
             "only that the name is there)")
PICK_CASES = [  # (environment, where the client should send requests: None for the tutor)
    ({}, None),
    ({"AGENTLAB_MODEL": "gpt-4.1"}, None),
    ({"OPENAI_BASE_URL": LOCAL_URL}, None),
    ({"OPENAI_API_KEY": ""}, None),  # set, but empty: no key (the SDK refuses it too)
    ({"OPENAI_API_KEY": FAKE_KEY}, OPENAI_URL),
    ({"OPENAI_API_KEY": FAKE_KEY, "AGENTLAB_MODEL": "tutor-looper"}, OPENAI_URL),
    ({"OPENAI_API_KEY": FAKE_KEY, "OPENAI_BASE_URL": LOCAL_URL}, LOCAL_URL),
]


def check_pick_client(pick_client) -> Verdict:
    """pick_client() -> a client for gpt-4o-mini when OPENAI_API_KEY is set, and the offline
    tutor otherwise (an empty OPENAI_API_KEY is no key), whatever else the environment holds.

    With a key, requests go where the SDK would send them: to OPENAI_BASE_URL when it is set (a
    local server, a proxy), else to OpenAI's API. A base URL without a key is still the tutor.

    Nothing is sent anywhere: the check only builds clients, with a fake key.
    """
    shown = {}
    with _no_network():
        for env, url in PICK_CASES:
            online = url is not None
            values = {k: None for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AGENTLAB_MODEL")}
            values.update(env)
            with _environment(**values):
                client, failed = attempt(f"pick_client() with {_describe_env(env)}", pick_client)
            if failed is not None:
                if env.get("OPENAI_API_KEY") == "":
                    failed.message += f": {EMPTY_KEY}"
                return failed
            if is_stub_result(client) and (client is Ellipsis or still_a_stub(pick_client)):
                return Verdict(False, f"pick_client() returned {short(client)}: fill in the stub")
            if is_stub_result(client) or not hasattr(client, "offline"):
                return Verdict(False, f"pick_client() should return connect(...)'s client, not "
                               f"{short(client)}")
            where = _describe_env(env)
            if online and client.offline:
                return Verdict(False, f"with {where} it must return a client for a real model")
            if not online and not client.offline:
                if env.get("OPENAI_API_KEY") == "":
                    return Verdict(False, f"with {where} it must return the offline tutor: "
                                   + EMPTY_KEY)
                return Verdict(False, f"with {where} it must return the offline tutor: only "
                               "OPENAI_API_KEY selects a real model here")
            want = "gpt-4o-mini" if online else "tutor"
            if client.default_model != want:
                return Verdict(False, f"with {where} the model should be {want!r}, not "
                               f"{client.default_model!r}: name it, don't inherit AGENTLAB_MODEL")
            sent_to = str(getattr(getattr(client, "sdk", None), "base_url", "")).rstrip("/")
            if online and sent_to != url:
                return Verdict(False, f"with {where} requests should go to {url}, where the SDK "
                               f"would send them, not {sent_to or 'nowhere'}: leave base_url to "
                               "the environment")
            if FAKE_KEY in repr(client):
                return Verdict(False, "the client's repr shows the key: never print a key")
            shown.setdefault(url, client)
    return Verdict(True, f"without a key: {shown[None]!r}; with one: {shown[OPENAI_URL]!r}; "
                   f"with one and OPENAI_BASE_URL: {shown[LOCAL_URL]!r}")


def _describe_env(env: dict) -> str:
    if not env:
        return "no key"
    return ", ".join(f"{k}={_shown(k, v)}" for k, v in env.items())


def _shown(name: str, value: str) -> str:
    if name != "OPENAI_API_KEY":
        return value
    return "<fake key>" if value else "'' (set, but empty)"
