"""A sentence read as a clause: who or what it is about, its verb, and what it says of them.

The offline generator asks wh-questions about a sentence's subject ("What does the Session object
allow you to do?"), so it needs the sentence's parts, without a tagger (the default install has
none). Documentation sentences are regular enough for a reading by word lists: the verb is the first
auxiliary, or the first word that is a known verb in a verb's place (not after "the", "a", "to" or
a preposition), within the first words of the sentence; the subject is what comes before it. A
sentence whose reading is unsure (its subject holds a comma or a relative clause, it starts with a
pronoun whose referent is elsewhere, it is a command or a pointer to another page) is not read at
all: a question is only as good as the sentence it is made from.

Only sentences a reader of the page reads as sentences are asked about (:func:`askable_sentences`):
prose lines and list items that are whole sentences; never a heading (headings are titles, not
text: :mod:`.readers.blocks`), a list stub, a link list, code or markup.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from ...scoring.text import STOPWORDS, split_sentences
from .readers.blocks import ELIDED

MIN_WORDS, MAX_WORDS = 6, 40
MAX_SUBJECT = 8
"""Most words of a subject: a longer one is a clause of its own, read less surely."""

_VERBS_TEXT = """
    encrypt decrypt sync compress decompress authenticate authorize serialize deserialize rotate
    retain schedule notify bundle vendor ship detect infer fall guess
    consume trust block allocate queue batch deliver deploy host migrate
    accept access act add adjust affect aim allow apply assume attach avoid build cache call cancel
    capture carry cause change check choose clean close collect combine come compare compile
    configure connect consider consist contain continue control convert copy correspond cost count
    cover create decide decode default define delete depend describe detect determine disable
    display distinguish do document download drop emit enable encode encourage end enforce ensure
    enter evaluate exist expect expire explain expose extend fail fetch fill find finish fit fix
    focus follow force format forward generate get give go grow handle happen have help hide hold
    identify ignore implement import improve include indicate inherit insert inspect install
    integrate intend introduce invoke issue keep know lead leave let limit link list live load
    lock log look maintain make manage map match mean merge mount move need offer omit open operate
    override own parse pass perform permit persist pick place point prefer prepare prevent print
    process produce prompt protect provide publish pull push put raise reach read receive
    recognise recognize recommend record redirect reduce refer reflect register reject release
    rely remain remove render replace report represent request require reset resolve respect
    respond restrict retry return reuse run save search select send separate serve set share show
    sign skip sort specify split start stay stop store stream submit suggest support suppress
    switch take target tell test track transfer transform treat trigger try turn update upgrade
    upload use validate verify wait want warn work wrap write yield
    """
VERBS = frozenset(_VERBS_TEXT.split())
"""Base forms of the verbs documentation states its facts with."""

_IRREGULAR = {
    "has": "have",
    "does": "do",
    "goes": "go",
    "built": "build",
    "made": "make",
    "kept": "keep",
    "sent": "send",
    "took": "take",
    "taken": "take",
    "gave": "give",
    "given": "give",
    "held": "hold",
    "found": "find",
    "left": "leave",
    "led": "lead",
    "ran": "run",
    "set": "set",
    "put": "put",
    "split": "split",
    "read": "read",
    "written": "write",
    "wrote": "write",
    "known": "know",
    "shown": "show",
    "got": "get",
    "gotten": "get",
    "meant": "mean",
    "told": "tell",
    "done": "do",
}
_AUXILIARIES_TEXT = """
    is are was were can could will would should may might must shall has have had does do did
"""
AUXILIARIES = frozenset(_AUXILIARIES_TEXT.split())
BE = frozenset({"is", "are", "was", "were"})
_CONTRACTIONS = {
    "can't": ("can", True),
    "cannot": ("can", True),
    "won't": ("will", True),
    "doesn't": ("does", True),
    "don't": ("do", True),
    "didn't": ("did", True),
    "isn't": ("is", True),
    "aren't": ("are", True),
    "wasn't": ("was", True),
    "shouldn't": ("should", True),
    "couldn't": ("could", True),
    "wouldn't": ("would", True),
    "mustn't": ("must", True),
    "hasn't": ("has", True),
    "haven't": ("have", True),
}
_ADVERBS_TEXT = """
    also now only still always often usually automatically typically generally already then currently
    simply just directly actually easily optionally explicitly officially primarily mainly fully
    normally commonly internally implicitly correctly properly safely even
    """
ADVERBS = frozenset(_ADVERBS_TEXT.split())
_DETERMINERS_TEXT = """
    the a an this that these those its their his her our your my each every any some no all
"""
DETERMINERS = frozenset(_DETERMINERS_TEXT.split())
_PREPOSITIONS_TEXT = """
    in on at for from of with by to into onto within without about over under through via using
    across between after before during per like as than upon around against along among behind
"""
PREPOSITIONS = frozenset(_PREPOSITIONS_TEXT.split())
_PRONOUN_SUBJECTS_TEXT = """
    it this that these those they he she we i there here such which what who one both it's there's
    that's they're we're here's let's what's
"""
_PRONOUN_SUBJECTS = frozenset(_PRONOUN_SUBJECTS_TEXT.split())
_OPENERS_NOT_ASKED_TEXT = """
    see refer read check click visit note please thanks thank let's lets let consider imagine
    remember try don't do go make use run install add open
"""
_OPENERS_NOT_ASKED = frozenset(_OPENERS_NOT_ASKED_TEXT.split())
"""First words of commands and pointers ("See the quickstart.", "Run the tests."): not statements."""
_REFERRING_TEXT = """
    this these those such above below following first second third last next previous latter former
    other same
"""
_REFERRING = frozenset(_REFERRING_TEXT.split())
"""Words of a subject that point at something said elsewhere ("the first element", "these options")."""
_POSSESSIVES = frozenset({"our", "their", "its", "his", "her"})
_NOUN_TOO_TEXT = """
    cache call change check default end fix import issue limit link list log map match need offer
    print record release request reset return search set sort start stream support test update
    upload work
"""
_NOUN_TOO = frozenset(_NOUN_TOO_TEXT.split())
"""Verbs that start a sentence as nouns as often as commands ("Support is available by email")."""
_DISCOURSE_TEXT = """
    however additionally alternatively finally similarly lastly also furthermore moreover therefore
    thus instead otherwise note so again first second third next then now importantly
"""
_DISCOURSE = frozenset(_DISCOURSE_TEXT.split())
_DISCOURSE_PAIRS = (
    "in addition,",
    "for example,",
    "for instance,",
    "in general,",
    "in other words,",
    "of course,",
    "in short,",
    "in practice,",
    "in particular,",
)
_PREFIX_OPENERS_TEXT = """
    when if after before while once since unless until as by in on for with without during from to
    since unlike starting compared although though whether whenever where
"""
_PREFIX_OPENERS = frozenset(_PREFIX_OPENERS_TEXT.split())
_RELATIVE_TEXT = """
    that which who whose where when if because while whereas although unless
"""
_RELATIVE = frozenset(_RELATIVE_TEXT.split())
_MARKUP_RE = re.compile(r"[{}\[\]<>|`$\\=*#~^@]|://|\.\.\.|" + ELIDED + r"|\(\)|::|:\w+:|\s[-+]{1,2}\w|^\W")
_CODE_TOKEN_RE = re.compile(r"\w[._/]\w.*[._/]|\w\(|_\w|\w_")
_CONTEXT_RE = re.compile(r"\b(?:this|these|those|above|below|following|here|such)\b", re.I)
_FIRST_PERSON_RE = re.compile(r"\b(?:I|I'm|I've|me|my)\b")


def _bare(word: str) -> str:
    return word.strip(".,;:!?\"'()“”‘’").lower()


def verb_base(word: str) -> str | None:
    """The base form of ``word`` when it is a form of a known verb ("supports" -> "support",
    "allowed" -> "allow", "has" -> "have"), else None."""
    w = _bare(word)
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if w in VERBS:
        return w
    candidates = []
    if w.endswith("ies"):
        candidates.append(w[:-3] + "y")
    if w.endswith("es"):
        candidates += [w[:-1], w[:-2]]
    elif w.endswith("s"):
        candidates.append(w[:-1])
    if w.endswith("ied"):
        candidates.append(w[:-3] + "y")
    if w.endswith("ed"):
        candidates += [w[:-1], w[:-2], w[:-3]]  # "used", "allowed", "stopped"
    return next((c for c in candidates if c in VERBS), None)


def _third_person(word: str) -> bool:
    """Whether ``word`` reads as a verb's "-s" form ("encrypts", "pushes"), not a noun's plural."""
    w = _bare(word)
    return w.isalpha() and w.islower() and w.endswith("s") and not w.endswith(("ss", "us", "is", "ous"))


def participle(word: str) -> str | None:
    """The verb of ``word`` when it is a past participle ("configured", "written", "set")."""
    w = _bare(word)
    if w in _IRREGULAR and w not in ("has", "does", "goes"):
        return verb_base(w)
    if w.endswith("ed") and len(w) > 4:
        return verb_base(w) or w  # "founded": a verb the list does not know, as written
    return None


def askable_sentences(text: str) -> list[str]:
    """The sentences of a passage a question may be made from: from its prose lines, and from its
    list items that are whole sentences (a capital first, a full stop last, a verb), each between
    :data:`MIN_WORDS` and :data:`MAX_WORDS` words, without markup, code, elisions, links or a
    first person; never a heading, which is no line of a passage."""
    found = []
    for line in text.splitlines():
        item = line.startswith("- ")
        body = line[2:] if item else line
        if item and not (body[:1].isupper() and body.rstrip().endswith(".")):
            continue
        for sentence in split_sentences(body):
            sentence = sentence.strip()
            words = sentence.split()
            if not (MIN_WORDS <= len(words) <= MAX_WORDS) or not sentence.endswith("."):
                continue
            if _MARKUP_RE.search(sentence) or _FIRST_PERSON_RE.search(sentence):
                continue
            if sentence.count("(") != sentence.count(")"):  # cut inside brackets: "(e.g. a file)"
                continue
            if _CONTEXT_RE.search(sentence):  # "in this case", "the following": said elsewhere
                continue
            if sum(bool(_CODE_TOKEN_RE.search(w)) for w in words) > 2:
                continue  # mostly code names: a sentence about code, for its reader
            if _bare(words[0]) in _OPENERS_NOT_ASKED:
                continue
            found.append(sentence)
    return found


@dataclass(frozen=True)
class Clause:
    """A sentence read as ``prefix subject aux [not] adverbs verb rest``."""

    sentence: str
    prefix: str
    """A leading phrase kept in front of the question ("By default,", "When a request fails,")."""
    subject: str
    aux: str
    """The auxiliary that goes before the subject in a question: as written, or do-support."""
    verb: str
    """The verb group after the subject in a question ("be used", "allow", "" for a copula)."""
    rest: list[str]
    negated: bool = False
    copula: bool = False
    passive: bool = False

    def inverted(self, names: Collection[str]) -> str:
        """The clause's question order without the rest: "does the Session object allow"."""
        subject = lower_first(self.subject, names)
        return " ".join(part for part in (self.aux, subject, self.verb) if part)


def lower_first(text: str, names: Collection[str]) -> str:
    """``text`` with its first word lower-cased, unless it is a name of the documents or starts one
    ("Nimbus Drive keeps ..."), or is an abbreviation ("TLS") or a code name."""
    first, _, rest = text.partition(" ")
    if first.lower() in STOPWORDS or first.lower() in DETERMINERS:
        return text[:1].lower() + text[1:]
    starts_a_name = rest[:1].isupper() and rest.split(" ", 1)[0] in names
    kept = first in names or starts_a_name or any(ch.isupper() for ch in first[1:]) or not first.isalpha()
    return text if kept else text[:1].lower() + text[1:]


def _strip_openers(words: list[str]) -> tuple[str, list[str]]:
    """(prefix, words after it): discourse markers ("However,") dropped; a leading phrase ended by
    a comma ("By default,") kept as the prefix."""
    while (
        words and _bare(words[0]) in _DISCOURSE and (words[0].endswith(",") or _bare(words[0]) == "instead")
    ):
        words = words[1:]
    head = " ".join(words[:3]).lower()
    for pair in _DISCOURSE_PAIRS:
        if head.startswith(pair):
            words = words[len(pair.split()) :]
    if words and _bare(words[0]) in _PREFIX_OPENERS:
        for k, word in enumerate(words[:12]):
            if word.endswith(","):
                prefix = words[: k + 1]
                if any(_bare(w) in _PRONOUN_SUBJECTS - {"one", "both"} for w in prefix):
                    return "", []  # "If this is problematic,": about something said elsewhere
                return " ".join(prefix), words[k + 1 :]
        return "", []
    return "", words


def read_clause(sentence: str) -> Clause | None:
    """The clause of ``sentence``, or None when its parts cannot be read surely."""
    prefix, words = _strip_openers(sentence.rstrip().rstrip(".").split())
    if len(words) < 3 or _bare(words[0]) in _PRONOUN_SUBJECTS | AUXILIARIES | {"please"} or _adverb(words[0]):
        return None  # a pronoun's referent is elsewhere; "May include values ...": no subject at all
    command = verb_base(words[0]) == _bare(words[0]) and _bare(words[0]) not in _NOUN_TOO
    if command and _bare(words[1]) not in AUXILIARIES:
        return None  # a command after its condition: "If you'd like to ..., pass in a dict"
    if _bare(words[0]) in PREPOSITIONS:
        return None  # a second leading phrase: "To structure a project, with multiple documents, ..."
    gerund = _bare(words[0]).endswith("ing")
    verb_at = None
    for i in range(1, min(len(words) - 1, MAX_SUBJECT + 1)):
        before, word = words[i - 1], words[i]
        if before.endswith((",", ";", ":")) or _bare(word) in _RELATIVE:
            return None
        bare = _bare(word)
        if bare in AUXILIARIES or bare in _CONTRACTIONS:
            verb_at = i
            break
        following = words[i + 1] if i + 1 < len(words) else ""
        after_article = _bare(words[0]) in DETERMINERS and "and" not in (_bare(w) for w in words[:i])
        if _bare(following) in AUXILIARIES or (
            after_article
            and verb_base(word) == bare
            and following[:1].islower()
            and verb_base(following) not in (None, _bare(following))
        ):
            continue  # "The mount call registers", "Shared links can": a noun before the verb
        if gerund and verb_base(word) == bare:
            continue  # "Enabling HTTP/2 support on ...": a gerund's subject takes "-s"
        named_subject = (
            i == 1 and (before[:1].isupper() or "_" in before) and _bare(before) not in DETERMINERS
        )
        if named_subject and _third_person(word) and _bare(following) in DETERMINERS | {"to"}:
            verb_at = i  # "Nimbus encrypts the ...": a name, then a verb the list does not know
            break
        if (
            word[:1].islower()
            and verb_base(word) is not None
            and _bare(before) not in DETERMINERS | PREPOSITIONS | {"to"}
            and not bare.endswith("ing")
            and not _bare(before).endswith("ing")  # "Setting verify to False": a gerund's object
        ):
            verb_at = i
            break
    if verb_at is None:
        return None
    subject_words, adverbs = words[:verb_at], list[str]()
    if any(
        _bare(w) in _REFERRING | _POSSESSIVES | _PRONOUN_SUBJECTS - {"one", "both"} for w in subject_words
    ):
        return None  # "these options", "Instead we": what they are was said in another sentence
    while len(subject_words) > 1 and _adverb(subject_words[-1]):
        adverbs.insert(0, _bare(subject_words[-1]))  # "Requests officially supports"
        subject_words = subject_words[:-1]
    return _verb_group(sentence, prefix, " ".join(subject_words), words[verb_at:], adverbs)


def _adverb(word: str) -> bool:
    bare = _bare(word)
    return bare in ADVERBS or (
        bare.endswith("ly") and len(bare) > 4 and bare not in ("only", "supply", "apply", "reply")
    )


def _verb_group(
    sentence: str, prefix: str, subject: str, words: list[str], adverbs: list[str]
) -> Clause | None:
    """The clause from its verb on: the auxiliary a question puts first, and the verb group after
    the subject (``adverbs``: those the sentence put before its verb)."""
    first = _bare(words[0])
    aux, negated = _CONTRACTIONS.get(first, (first, False))
    rest = words[1:]
    if aux not in AUXILIARIES:  # a main verb: do-support
        base = verb_base(first) or (first[:-1] if _third_person(first) else None)
        if base is None:
            return None
        if first.endswith("s") and first != base:
            aux = "does"
        elif first.endswith("ed") or (first in _IRREGULAR and first not in ("has", "does", "goes")):
            aux = "did"
        else:
            aux = "do"
        return Clause(sentence, prefix, subject, aux, _join(*adverbs, base), rest)
    if rest and _bare(rest[0]) in ("not", "never"):
        negated, rest = True, rest[1:]
    if len(rest) >= 2 and _bare(rest[0]) == "no" and _bare(rest[1]) == "longer":
        negated, rest = True, rest[2:]
    while rest and _adverb(rest[0]):
        adverbs.append(_bare(rest[0]))
        rest = rest[1:]
    if not rest:
        return None
    lead = " ".join(adverbs)
    head = _bare(rest[0])
    if aux in BE:
        if participle(head) is not None:
            return Clause(sentence, prefix, subject, aux, _join(lead, head), rest[1:], negated, passive=True)
        return Clause(sentence, prefix, subject, aux, lead, rest, negated, copula=True)
    if aux in ("has", "have", "had"):
        if head == "been" and len(rest) > 1 and participle(rest[1]) is not None:
            return Clause(
                sentence,
                prefix,
                subject,
                aux,
                _join(lead, f"been {_bare(rest[1])}"),
                rest[2:],
                negated,
                passive=True,
            )
        if participle(head) is not None:
            return Clause(sentence, prefix, subject, aux, _join(lead, head), rest[1:], negated)
        do = {"has": "does", "have": "do", "had": "did"}[aux]
        return Clause(sentence, prefix, subject, do, _join(lead, "have"), rest, negated)
    if aux in ("do", "does", "did"):
        base = verb_base(head)
        return (
            None
            if base is None
            else Clause(sentence, prefix, subject, aux, _join(lead, base), rest[1:], negated)
        )
    # a modal: can, will, should ...
    if head == "be" and len(rest) > 1:
        second = _bare(rest[1])
        if participle(second) is not None:
            return Clause(
                sentence, prefix, subject, aux, _join(lead, f"be {second}"), rest[2:], negated, passive=True
            )
        return Clause(sentence, prefix, subject, aux, _join(lead, "be"), rest[1:], negated, copula=True)
    base = verb_base(head)
    if base is None or head != base:
        return None
    return Clause(sentence, prefix, subject, aux, _join(lead, head), rest[1:], negated)


def _join(*parts: str) -> str:
    return " ".join(p for p in parts if p)
