"""`dataagent sandbox ...`: run the sandbox as its own service."""

from __future__ import annotations

import typer

from dataagent.config import Settings

app = typer.Typer(help="The Python sandbox.", no_args_is_help=True)


@app.callback()
def sandbox() -> None:
    """Run model-written Python in isolation (bubblewrap) or serve it over HTTP."""


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    port: int = typer.Option(8765, help="Port to listen on."),
    token: str | None = typer.Option(
        None, envvar="DATAAGENT_SANDBOX_TOKEN", help="Require this bearer token on /execute."
    ),
) -> None:
    """Serve `POST /execute` and `GET /health` with the local warm pool."""
    import uvicorn

    from dataagent.sandbox.service import create_app

    settings = Settings()
    if host not in ("127.0.0.1", "localhost", "::1") and not token:
        typer.echo("warning: serving the sandbox beyond localhost without --token", err=True)
    uvicorn.run(create_app(settings, token=token), host=host, port=port, log_level="info")
