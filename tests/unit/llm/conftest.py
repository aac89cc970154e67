"""The scripted OpenAI-compatible server for the tests that run the real provider path."""

from tests.fakes.fixtures import openai_server

__all__ = ["openai_server"]
