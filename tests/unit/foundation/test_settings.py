"""Settings: env parsing, defaults, the generated secret, and the docs listing every one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dataagent.config import Settings

DOCS = Path(__file__).resolve().parents[3] / "docs" / "configuration.md"


def test_every_setting_is_documented() -> None:
    documented = set(re.findall(r"`(DATAAGENT_[A-Z0-9_]+)`", DOCS.read_text()))
    expected = {f"DATAAGENT_{name.upper()}" for name in Settings.model_fields}
    assert expected - documented == set(), "undocumented settings"
    assert documented - expected == set(), "documented settings that do not exist"


def test_env_overrides_and_lists(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATAAGENT_PORT", "9123")
    monkeypatch.setenv("DATAAGENT_CORS_ORIGINS", "https://a.example, https://b.example")
    monkeypatch.setenv("DATAAGENT_DATA_DIR", str(tmp_path))
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.port == 9123
    assert settings.cors_origins == ["https://a.example", "https://b.example"]
    assert settings.resolved_database_url == f"sqlite+aiosqlite:///{tmp_path / 'dataagent.db'}"


def test_dotenv_file_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    env = tmp_path / ".env"
    env.write_text("DATAAGENT_LOG_LEVEL=DEBUG\nDATAAGENT_QUERY_MAX_ROWS=42\n")
    settings = Settings(_env_file=env)  # type: ignore[call-arg]
    assert settings.log_level == "DEBUG"
    assert settings.query_max_rows == 42


def test_invalid_values_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATAAGENT_PORT", "99999")
    with pytest.raises(ValueError, match="port"):
        Settings(_env_file=None)  # type: ignore[call-arg]


def test_secret_key_generated_once_and_kept(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "d", _env_file=None)  # type: ignore[call-arg]
    first = settings.resolved_secret_key()
    assert len(first) >= 32
    assert settings.resolved_secret_key() == first
    key_file = tmp_path / "d" / "secret_key"
    assert key_file.stat().st_mode & 0o077 == 0
    explicit = Settings(data_dir=tmp_path / "d", secret_key="s" * 40, _env_file=None)  # type: ignore[call-arg]
    assert explicit.resolved_secret_key() == "s" * 40
