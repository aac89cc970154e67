"""The weak-model benchmark's verdict on one question: what counts as a finding."""

from __future__ import annotations

from benchmarks.agent_bench import Frame
from benchmarks.weak_model_bench import QUESTIONS, Outcome, _route, chosen, collapsed


def ended(**overrides: object) -> Outcome:
    """A question that ended well: created, sent, streamed to `message_complete`."""
    outcome = Outcome(
        "How many customers?",
        http=["POST /chats 201", "POST /chats/{id}/messages 201", "GET /chats/{id} 200"],
        stream_ended=True,
        terminal_event="message_complete",
        status="complete",
    )
    for name, value in overrides.items():
        setattr(outcome, name, value)
    return outcome


def test_a_complete_answer_and_a_clear_failure_are_no_finding() -> None:
    assert ended().findings() == []
    failed = ended(
        terminal_event="message_error",
        status="failed",
        error_code="LLM_ERROR",
        error_message="The model's plan could not be read.",
    )
    assert failed.findings() == []
    assert ended(status="clarification_needed").findings() == []


def test_a_5xx_a_stuck_answer_an_open_stream_and_an_unclear_failure_are_findings() -> None:
    assert ended(http=["POST /chats/{id}/messages 503"]).findings() == [
        "HTTP POST /chats/{id}/messages 503"
    ]
    assert ended(stuck=True, stream_ended=False, status="failed").findings() == [
        "stuck past the deadline",
        "failed without an error code and message",
    ]
    assert ended(stream_ended=False).findings() == [
        "the stream ended without message_complete or message_error"
    ]
    assert ended(status="generating").findings() == ["stored status 'generating'"]
    assert ended(status="failed", error_code="LLM_ERROR").findings() == [
        "failed without an error code and message"
    ]


def test_events_are_collapsed_into_runs_with_their_first_time() -> None:
    frames = [Frame(i, event, "{}") for i, event in enumerate(["a", "b", "b", "b", "a"], 1)]
    assert collapsed(frames, [0.1, 1.0, 1.5, 2.0, 3.25]) == [
        "a @0.1",
        "b x3 @1.0",
        "a @3.2",
    ]


def test_routes_hide_ids_and_questions_are_spread_or_repeated() -> None:
    chat, message = "0" * 8 + "-0000-0000-0000-" + "0" * 12, "1" * 8 + "-1111-1111-1111-" + "1" * 12
    path = f"/api/data-agent/chats/{chat}/messages/{message}/stream"
    assert _route(path) == "/chats/{id}/messages/{id}/stream"
    assert chosen(5) == [QUESTIONS[i] for i in (0, 4, 8, 12, 16)]
    assert chosen(len(QUESTIONS) + 2) == [*QUESTIONS, *QUESTIONS[:2]]
