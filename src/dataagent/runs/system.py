"""The runs room put together for one app: event log, handlers, runner, reaper, and the
stateless chats streaming in this process."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from dataagent.config import Settings
from dataagent.runs.agent_server import AgentServer
from dataagent.runs.builds import OntologyBuilds, RunBuilds
from dataagent.runs.chat import ChatAnswers
from dataagent.runs.event_log import EventLog
from dataagent.runs.reaper import Reaper
from dataagent.runs.runner import LocalRunner, RunHandler
from dataagent.runs.stateless_chats import SERVER_STOPPING, StatelessChats
from dataagent.services.context import AppContext
from dataagent.vocabulary import RunKind


class RunSystem:
    """One app's durable runs. `install` makes one and gives the context its builds."""

    def __init__(self, app: AppContext) -> None:
        settings = app.settings
        self.app = app
        self.events = EventLog(app.database)
        self.handlers: dict[str, RunHandler] = {
            "chat_message": ChatAnswers(),
            "ontology_build": OntologyBuilds(),
        }
        self.runner = LocalRunner(
            app,
            self.events,
            self.handlers,
            max_concurrency=settings.run_max_concurrency,
            lease_s=settings.run_lease_s,
        )
        self.reaper = Reaper(
            app.database,
            self.events,
            self.handlers,
            settings.run_lease_s,
            claim_timeout_s=settings.answer_claim_timeout_s,
            chart_retention_hours=settings.chart_retention_hours,
        )
        self.heartbeat_s = settings.run_heartbeat_s
        self.lease_s = settings.run_lease_s
        # Checked as often as a worker looks for a cancel asked in another process.
        self.chats = StatelessChats(
            app, self.runner, settings.agent_chat_max_per_user, check_s=self.lease_s / 3
        )
        # Seed 004's agent server: its requests are runs, their limit the stateless chats'.
        self.agent_server = AgentServer(app, self.runner, self.chats, self.lease_s)
        self.handlers["agent_server"] = self.agent_server

    @classmethod
    def install(cls, app: AppContext) -> RunSystem:
        """A run system for the app whose context now builds ontologies on its runner."""
        system = cls(app)
        app.builds = RunBuilds(system.runner, system.lease_s)
        return system

    @classmethod
    @contextlib.asynccontextmanager
    async def in_process(cls, settings: Settings) -> AsyncIterator[RunSystem]:
        """A context and its run system for work outside the server (the command line, the
        demo set-up): its builds are durable runs executed here, as a server's are. Stopped
        and closed at the end (a build still running then ends INTERRUPTED)."""
        system = cls.install(AppContext.from_settings(settings))
        try:
            await system.runner.start()
            yield system
        finally:
            await system.stop()
            await system.app.aclose()

    def register(self, kind: RunKind, handler: RunHandler) -> None:
        """Execute runs of `kind` with `handler` (tests register their own)."""
        self.handlers[kind] = handler

    async def start(self) -> None:
        """Fail what a stopped server left (the reaper's first sweep), then accept runs."""
        await self.runner.start()
        await self.reaper.start()

    async def stop(self) -> None:
        """Stop sweeping and stop the runs executing here (they end INTERRUPTED) and the
        stateless chats streaming here (they end with `error`)."""
        await self.reaper.stop()
        await self.chats.stop_all(SERVER_STOPPING, wait_s=self.lease_s)
        await self.runner.stop()
