"""Words that state the opposite of each other: "closed" is "not open", "yearly" is not "monthly".

The word vectors rate opposites close (they share their contexts: enabled ~ disabled, senior ~
junior), so the noun-swap check reads such a replacement as a synonym and the model as a near
copy. Two sources mark them: a short written table of pairs ("enabled"/"disabled",
"senior"/"junior", "correct"/"incorrect"), and the prefixes "un" and "non"
("available"/"unavailable"). A frequency differs from any other frequency.
Pairs that a rewording reverses by perspective ("buy"/"sell", "lend"/"borrow") are left out:
"the shop sells bikes" and "you can buy bikes there" say the same.
"""

from __future__ import annotations

from functools import lru_cache

from .lexical import cached_stem

_PAIRS_TEXT = """
    open:closed open:shut included:excluded allowed:banned allowed:forbidden
    allowed:prohibited permitted:banned permitted:forbidden permitted:prohibited available:unavailable
    required:optional mandatory:optional accepted:rejected accepted:refused possible:impossible
    valid:invalid eligible:ineligible automatic:manual automatically:manually senior:junior
    minimum:maximum public:private internal:external inbound:outbound free:paid online:offline
    permanent:temporary temporarily:permanently domestic:international enabled:disabled
    enable:disable on:off
    correct:incorrect complete:incomplete active:inactive direct:indirect secure:insecure
    sufficient:insufficient accurate:inaccurate legal:illegal regular:irregular visible:invisible
    dependent:independent formal:informal allowed:disallowed connected:disconnected
    continued:discontinued qualified:disqualified approve:disapprove approved:disapproved
    agree:disagree
"""
_FREQUENCIES_TEXT = """
    hourly:hour daily:day nightly:night weekly:week fortnightly:fortnight biweekly:biweek
    monthly:month quarterly:quarter yearly:year annually:year annual:year
"""
# "un" and "non" negate nearly every word they open; "in", "im", "dis" ... open as many words that
# are no negation ("install", "income", "discover"), so their pairs are written out above.
_NEGATING_PREFIXES = ("un", "non")
_SHORTEST_ROOT = 4  # "un" + "able" is a word; "un" + "it" is none


def _stems(pairs: str) -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for pair in pairs.split():
        a, b = (cached_stem(w) for w in pair.split(":"))
        table.setdefault(a, set()).add(b)
        table.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in table.items()}


_OPPOSITES = _stems(_PAIRS_TEXT)
_FREQUENCY = {
    cached_stem(word): period for pair in _FREQUENCIES_TEXT.split() for word, period in [pair.split(":")]
}


@lru_cache(maxsize=1 << 15)
def opposites_of(word: str) -> frozenset[str]:
    """Every (stemmed) word that states the opposite of ``word``: its pairs in the table, the other
    frequencies, and the word with "un" or "non" added or taken away ("available"/"unavailable")."""
    found = set(_OPPOSITES.get(word, ()))
    if word in _FREQUENCY:
        found.update(other for other, period in _FREQUENCY.items() if period != _FREQUENCY[word])
    if len(word) >= _SHORTEST_ROOT:
        found.update(prefix + word for prefix in _NEGATING_PREFIXES)
    for prefix in _NEGATING_PREFIXES:
        if word.startswith(prefix) and len(word) - len(prefix) >= _SHORTEST_ROOT:
            found.add(word[len(prefix) :])
    return frozenset(found)


def are_opposites(a: str, b: str) -> bool:
    """Whether two words (stemmed) state opposite things (see :func:`opposites_of`)."""
    return b in opposites_of(a)
