"""English nouns for generated text: the plural and singular of a table's name.

Rules, not a dictionary: enough for the names tables get (`order_items`, `categories`,
`addresses`, `SKUs`), with the few irregular and uncountable words they commonly use.
"""

from __future__ import annotations

import re

UNCOUNTABLE = frozenset(
    {"data", "information", "staff", "equipment", "feedback", "metadata", "media", "news"}
)
IRREGULAR = {"person": "people", "child": "children", "man": "men", "woman": "women"}


def plural(phrase: str) -> str:
    """The plural of a noun phrase (its last word): `order item` -> `order items`."""
    *head, last = phrase.split(" ")
    if head and last.isdigit():
        return f"{plural(' '.join(head))} {last}"  # `sales 2023`
    lower = last.lower()
    if lower in UNCOUNTABLE or _looks_plural(lower) or (last[:-1].isupper() and lower[-1] == "s"):
        word = last
    elif lower in IRREGULAR:
        word = IRREGULAR[lower]
    elif last.isupper():
        word = last + "s"
    elif lower.endswith("is") and len(lower) > 3:
        word = last[:-2] + "es"  # analysis -> analyses
    elif re.search(r"[^aeiou]y$", lower):
        word = last[:-1] + "ies"
    elif re.search(r"(s|x|z|ch|sh)$", lower):
        word = last + "es"
    else:
        word = last + "s"
    return " ".join([*head, word])


def singular(phrase: str) -> str:
    """The singular of a noun phrase (its last word): `categories` -> `category`."""
    *head, last = phrase.split(" ")
    if head and last.isdigit():
        return f"{singular(' '.join(head))} {last}"
    lower = last.lower()
    reverse = {v: k for k, v in IRREGULAR.items()}
    if lower in reverse:
        word = reverse[lower]
    elif len(last) > 2 and last.endswith("s") and last[:-1].isupper():
        word = last[:-1]  # SKUs -> SKU
    elif lower in UNCOUNTABLE or last.isupper() or not _looks_plural(lower):
        word = last
    elif lower.endswith("yses"):
        word = last[:-2] + "is"  # analyses -> analysis
    elif lower.endswith("ies") and len(lower) > 4:
        word = last[:-3] + "y"
    elif re.search(r"(sses|xes|zes|ches|shes|uses)$", lower):
        word = last[:-2]
    else:
        word = last[:-1]
    return " ".join([*head, word])


def _looks_plural(word: str) -> bool:
    if word in IRREGULAR.values():
        return True
    return word.endswith("s") and not re.search(r"(ss|us|is)$", word) and len(word) > 2
