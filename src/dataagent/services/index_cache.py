"""A small least-recently-used cache of search indexes, keyed by ontology and build."""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from datetime import datetime
from typing import Generic, TypeVar

T = TypeVar("T")

DEFAULT_SIZE = 16


class IndexCache(Generic[T]):
    """Indexes of recently searched ontologies. The key holds the ontology's last build
    (`updated_at`), so a rebuilt ontology never answers from a stale index."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[tuple[uuid.UUID, datetime], T] = OrderedDict()

    def get(self, ontology_id: uuid.UUID, built_at: datetime) -> T | None:
        """The cached index of this build, or None."""
        with self._lock:
            item = self._items.get((ontology_id, built_at))
            if item is not None:
                self._items.move_to_end((ontology_id, built_at))
            return item

    def put(self, ontology_id: uuid.UUID, built_at: datetime, index: T) -> None:
        """Keep an index, dropping the least recently used past the size."""
        with self._lock:
            self._items[(ontology_id, built_at)] = index
            while len(self._items) > self.size:
                self._items.popitem(last=False)
