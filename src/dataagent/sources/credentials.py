"""Connection credentials encrypted at rest (Fernet, key derived from the secret key)."""

from __future__ import annotations

import base64
import json

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.engines import ConnectionSpec

_SALT = b"dataagent/connections"
_INFO = b"connection-credentials-v1"


class CredentialCipher:
    """Encrypts a ConnectionSpec to an opaque token and back."""

    def __init__(self, secret_key: str) -> None:
        derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=_SALT, info=_INFO).derive(
            secret_key.encode()
        )
        self._fernet = Fernet(base64.urlsafe_b64encode(derived))

    def encrypt(self, spec: ConnectionSpec) -> str:
        """The spec, secrets included, as an encrypted token."""
        plain = {
            "dialect": spec.dialect,
            "url": spec.url.get_secret_value() if spec.url else None,
            "host": spec.host,
            "port": spec.port,
            "database": spec.database,
            "username": spec.username,
            "password": spec.password.get_secret_value() if spec.password else None,
        }
        data = {k: v for k, v in plain.items() if v is not None}
        return self._fernet.encrypt(json.dumps(data).encode()).decode()

    def decrypt(self, token: str) -> ConnectionSpec:
        """The spec back; a clear error when the secret key has changed."""
        try:
            data = json.loads(self._fernet.decrypt(token.encode()))
        except InvalidToken:
            raise DataAgentError(
                ErrorCode.CONNECTION_FAILED,
                "The stored credentials cannot be read: the secret key has changed. "
                "Update the connection's credentials.",
            ) from None
        return ConnectionSpec.model_validate(data)
