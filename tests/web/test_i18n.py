"""The message catalogues: every language has every message, with the same placeholders.

A missing key shows the English text (or the key itself), and a placeholder missing or misspelt
in one language shows up as ``{name}`` on screen; both are caught here rather than by a player.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

CATALOGUES = Path(__file__).resolve().parents[2] / "src" / "carcassonne" / "web" / "static" / "i18n"
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def load(lang: str) -> dict[str, str]:
    data = json.loads((CATALOGUES / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize("lang", ["fr", "ro"])
def test_catalogue_has_every_english_message_with_its_placeholders(lang: str) -> None:
    english = load("en")
    other = load(lang)
    assert sorted(set(english) ^ set(other)) == []
    wrong = {
        key: (PLACEHOLDER.findall(text), PLACEHOLDER.findall(other[key]))
        for key, text in english.items()
        if set(PLACEHOLDER.findall(text)) != set(PLACEHOLDER.findall(other[key]))
    }
    assert wrong == {}


@pytest.mark.parametrize("lang", ["fr", "ro"])
def test_rules_summary_gives_the_same_numbers_in_every_language(lang: str) -> None:
    # A point value lost or changed in translation would teach a player the wrong rule.
    english = load("en")
    other = load(lang)
    wrong = {
        key: (text, other[key])
        for key, text in english.items()
        if key.startswith("rules.")
        and sorted(re.findall(r"\d+", text)) != sorted(re.findall(r"\d+", other[key]))
    }
    assert wrong == {}


@pytest.mark.parametrize("lang", ["en", "fr", "ro"])
def test_every_count_has_the_three_plural_forms_the_page_chooses_from(lang: str) -> None:
    # i18n.js's plural() picks ".one", ".few" or ".other" (Romanian needs all three: "1 piesă",
    # "7 piese", "20 de piese"); a count with only some of them shows its key on screen.
    forms = ("one", "few", "other")
    families: dict[str, set[str]] = {}
    for key in load(lang):
        base, _, form = key.rpartition(".")
        if form in (*forms, "many"):
            families.setdefault(base, set()).add(form)
    assert families, "no plural counts found"
    assert {base: sorted(found) for base, found in families.items() if found != set(forms)} == {}
