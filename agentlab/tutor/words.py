"""What a task names: places, other names, numbers, quoted text, content words, a time zone.

Example: Task("Is it colder in oslo or in New York?").places -> ["Oslo", "New York"]

The tutor has no knowledge of the world: it cannot tell a city from a country. It reads what a
sentence's shape says (a name after "in" or "of", a capitalised phrase, a quoted string) and
lets the tools' results say the rest. Framing such as "New task:" or "Task:" counts as a name
only when nothing else is named.
Place names match regardless of case, and are written in any script: a letter is any Unicode
letter, with its accents (Zürich, São Paulo, Москва), and a script without capitals (東京, القاهرة)
counts as capitalised, since case cannot tell its names apart. A unit is never a name: "C" in
"18 °C" or "64.4 F" is Celsius or Fahrenheit. Every pattern here reads each character a bounded
number of times, so a task of any size takes linear time.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata

import regex  # Unicode's letter classes (\p{L}, \p{Lu}), which the standard re lacks

from .expressions import find_expression
from .reading import schemas_in_text

STOPWORDS = set("""a an the of in on at to for and or but is are was be it its this that what whats
which who how when where why do does did should shall will i me my you your get give tell please
can could would with from by as about now current currently today tonight tomorrow yesterday
also then if look find search check use compute calculate celsius fahrenheit utc capital
population currency country weather time temperature there here than more less so take some
any much many very need want know like hi hello hey thanks summarise summarize write
explain show translate""".split())
# Words a prompt capitalises for emphasis or as a label, never names of places: framework
# boilerplate ("you MUST return", "Format:", "OpenAPI", "City:"), schema and protocol words.
# A word in capitals of four letters or more ("MUST", "JSON", "NEVER") is never a name either;
# shorter ones may be (USA, UK, NYC).
BOILERPLATE = set("""format openapi city country name field fields schema json json_schema
output input return returns extract answer final response example examples note important
thought action observation question task tool tools code python markdown respond provide
make ensure remember must never always only yes true false null none string number integer
object array boolean title description properties required type value result
preserve content original rewrite paraphrase modify meaning structure literal valid begin
criteria expected instructions conversation given provided following order""".split())
# (The last two lines: CrewAI's and DSPy's instructions, "Preserve the original content",
# "of the content", "a valid Python Literal", "Begin!", "Given the conversation", "in the
# following order of fields".)
# A word: a letter, then letters, accents (combining marks), apostrophes and hyphens. A word
# starts where no letter, digit or degree sign comes before it ("°C" and "18C" hold no word C).
_LETTERS = r"[\p{L}\p{M}'’-]*"
_WORD_START = r"(?<![\p{L}\p{M}\p{N}_'’°º])"
_CAPITAL = r"[\p{Lu}\p{Lt}\p{Lo}]"  # upper case, or a letter of a script without case
_CAPITALISED = regex.compile(
    rf"{_WORD_START}{_CAPITAL}{_LETTERS}(?:[ \t]+{_CAPITAL}{_LETTERS})*")
_AFTER_PREPOSITION = regex.compile(  # a lookahead: "in oslo or in new york" gives both places
    rf"\b(?:in|of|for|at)[ \t]+(?=((?:the[ \t]+)?\p{{L}}{_LETTERS}"
    rf"(?:[ \t]+\p{{L}}{_LETTERS}){{0,2}}))", regex.I)
_CAPITAL_OF = regex.compile(rf"\bcapital[ \t]+of[ \t]+((?:the[ \t]+)?\p{{L}}{_LETTERS}"
                            rf"(?:[ \t]+\p{{L}}{_LETTERS}){{0,2}})", regex.I)
# Units written as letters: after a number or a degree sign ("18 C", "64.4°F") they are units.
UNIT_LETTERS = {"C", "F", "K"}
_AFTER_NUMBER = regex.compile(r"(?:\d|[°º])[ \t]*\Z")
# Where a sentence or a line starts (a bullet's mark skipped): a word capitalised there may
# be capitalised for that reason alone, as "New" in "New task:" or "Task" in "Task: ...".
_SENTENCE_START = regex.compile(r"(?:\A|[\n.!?:;])[ \t*>#-]*(?=[\p{Lu}\p{Lt}])")
_LIST_GOES_ON = re.compile(r"[ \t]*(?:,|(?:or|and|vs\.?|versus)\b)")
# Framing around a task: a short line that ends with a colon ("New task:", smolagents' heading),
# or a word with a colon right after it ("Task: ...", "Question: ...").
_HEADING_LINE = re.compile(r"^[^\n:]{1,80}:[ \t]*$", re.M)
_COLON_NEXT = re.compile(r"[ \t]*:")
# How surely a capitalised word is a name, least sure first: on a heading line, before a
# label's colon, at the start of a sentence, anywhere else.
HEADING, LABEL, SENTENCE_START, SURE = range(4)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_QUOTED = re.compile(r"\"([^\"\n]{1,200})\"|'([^'\n]{2,200})'")
_WORD = re.compile(r"[^\W\d_]+")  # letters of any script
MAX_NAMES = 16  # a model's plan names a handful of things, not thousands
NAMES_WITHIN = 100_000  # names are looked for in the task's first 100,000 characters


class Task:
    """A task's text, and what it names, each worked out once."""

    def __init__(self, text: str):
        self.text = text
        self.lower = text.lower()
        self.expression = find_expression(text)

    @functools.cached_property
    def words(self) -> set[str]:
        return content_words(self.text)

    @functools.cached_property
    def numbers(self) -> list[int | float]:
        found = (m[0] for m in _NUMBER.finditer(self.text))
        return [float(n) if "." in n else int(n) for n in _first(found, MAX_NAMES)]

    @functools.cached_property
    def quoted(self) -> list[str]:
        return [a or b for a, b in _first((m.groups() for m in _QUOTED.finditer(self.text)),
                                          MAX_NAMES)]

    @functools.cached_property
    def places(self) -> list[str]:
        """Names of places and things, in the order the task gives them.

        Example: "What is the capital of kenya?" -> ["Kenya"]
        """
        text = _without_schemas(self.text[:NAMES_WITHIN])
        reading = _Capitals(text)
        found = [(m.start(1), _trim(m[1]), SURE) for m in _AFTER_PREPOSITION.finditer(text)]
        found += [(m.start(), _trim(m[0]), reading.how_sure(m))
                  for m in _CAPITALISED.finditer(text)]
        found = [(at, _without_unit(text, at, name), sure) for at, name, sure in found]
        names, sureness = {}, {}
        for _, name, sure in sorted(found):
            if name:
                names.setdefault(name.lower(), name)
                sureness[name.lower()] = max(sure, sureness.get(name.lower(), HEADING))
        # The task's framing ("New task:", "Task:") is not a name when the task names anything
        # else, even a word that only starts a sentence ("Lima! Is it warm in summer?" names
        # Lima): a sentence's first word is dropped only by a stopword, never by ranking.
        names = {key: name for key, name in names.items() if not _boilerplate(name)}
        keep = min(max((sureness[key] for key in names), default=SURE), SENTENCE_START)
        names = {key: name for key, name in names.items() if sureness[key] >= keep}
        return _first(names.values(), MAX_NAMES)

    @functools.cached_property
    def countries(self) -> list[str]:
        """Places named right after "capital of" (their capital is what the task needs)."""
        found = _CAPITAL_OF.finditer(self.text[:NAMES_WITHIN])
        return _first((n for n in (_trim(m[1]) for m in found) if n), MAX_NAMES)

    def mentions(self, *patterns: str) -> bool:
        """Does a word of the task start with one of these? (one pass over the text)"""
        return re.search(r"\b(?:" + "|".join(patterns) + ")", self.lower) is not None


class _Capitals:
    """Where in a text a capitalised word may be capitalised for a reason other than being a
    name: at the start of a sentence or line, in a heading line, before a label's colon."""

    def __init__(self, text: str):
        self.sentence_starts = {m.end() for m in _SENTENCE_START.finditer(text)}
        self.headings = [m.span() for m in _HEADING_LINE.finditer(text)]
        self.heading_starts = [start for start, _ in self.headings]

    def how_sure(self, match: re.Match) -> int:
        """How surely one capitalised phrase is a name: SURE unless it is one word at the
        start of a sentence or line, where any word is written with a capital; even there a
        word that begins a list ("Oslo, Paris or Rome: which is warmest?") or a phrase of
        several capitalised words ("New York is ...") is SURE.

        Example: "New task:\nTask: Paris weather?" -> "New" HEADING, "Task" LABEL,
                 "Paris" SENTENCE_START
        """
        if match.start() not in self.sentence_starts or " " in match[0] or "\t" in match[0]:
            return SURE
        if _LIST_GOES_ON.match(match.string, match.end()):
            return SURE
        if self._in_heading(match.start()):
            return HEADING
        if _COLON_NEXT.match(match.string, match.end()):
            return LABEL
        return SENTENCE_START

    def _in_heading(self, at: int) -> bool:
        i = bisect.bisect_right(self.heading_starts, at) - 1
        return i >= 0 and at < self.headings[i][1]


def _without_schemas(text: str) -> str:
    """The text with every JSON schema written in it blanked out: a schema is the answer's
    format (CrewAI writes its titles, "WeatherReport", "Conditions"), never what the task names.

    Example: 'Weather in Oslo. Schema: {"properties": {"a": {"title": "A"}}}'
             -> 'Weather in Oslo. Schema: ' followed by spaces
    """
    parts, at = [], 0
    for start, end, _ in schemas_in_text(text):
        parts += [text[at:start], " " * (end - start)]
        at = end
    return "".join(parts) + text[at:] if parts else text


def _without_unit(text: str, at: int, name: str) -> str:
    """The name found at `at` without a unit's letter it starts with: a letter alone, or one
    after a number or a degree sign, is a unit ("" if nothing else is left).

    Example: ("It is 18 C in Oslo", 11, "C") -> "";  ("Temperature in F?", 15, "F") -> ""
             ("18 C Oslo", 3, "C Oslo") -> "Oslo";  ("Is it cold in Å?", 14, "Å") -> "Å"
    """
    first, _, rest = name.partition(" ")
    if first not in UNIT_LETTERS:
        return name
    if not rest or _AFTER_NUMBER.search(text, max(at - 16, 0), at):
        return rest.strip()
    return name


def _boilerplate(name: str) -> bool:
    """Is every word of a phrase prompt boilerplate rather than part of a name?

    Example: "MUST" -> True;  "Format" -> True;  "Mexico City" -> False;  "USA" -> False
    """
    return all(word.lower() in BOILERPLATE or (word.isupper() and len(word) >= 4)
               for word in name.split())


def _first(items, n: int) -> list:
    out = []
    for item in items:
        if len(out) == n:
            break
        out.append(item)
    return out


def _trim(phrase: str) -> str:
    """A phrase cut at its first stopword, in title case if it was written all lower case.

    Example: "the capital" -> "";  "new york and" -> "New York";  "Paris" -> "Paris"
    """
    words = phrase.split()
    if words and words[0].lower() == "the":
        words = words[1:]
    kept = []
    for word in words:
        word = word.replace("’", "'")  # a typographic apostrophe: "Paris’s" is "Paris's"
        bare = word.lower().removesuffix("'s").replace("'", "")
        if bare in STOPWORDS:
            break
        kept.append(word.removesuffix("'s"))
    name = " ".join(kept)
    return name.title() if name.islower() else name


def content_words(text: str) -> set[str]:
    """The words that carry meaning, singular-ish, for matching a task against tools.

    Example: "Search my notes" -> {"search", "note"}
    """
    words = (w.rstrip("s") for w in _WORD.findall(text.lower()) if len(w) > 2)
    return {w for w in words if w and w not in STOPWORDS}


@functools.lru_cache(maxsize=1)
def _zones() -> dict[str, str]:
    """The last part of every IANA zone name, lower case -> the zone ("tokyo" -> "Asia/Tokyo")."""
    from zoneinfo import available_timezones  # reads the zone database from disk: once

    return {zone.rsplit("/", 1)[-1].lower(): zone
            for zone in sorted(available_timezones()) if "/" in zone}


def timezone_of(task: Task) -> str:
    """The IANA zone of a city the task names, else UTC. Zone names are written without
    accents, so a name is looked up without its own.

    Example: "Tokyo" -> "Asia/Tokyo";  "São Paulo" -> "America/Sao_Paulo"
    """
    for name in task.places:
        zone = _zones().get(_unaccented(name).replace(" ", "_").lower())
        if zone:
            return zone
    return "UTC"


def _unaccented(name: str) -> str:
    """Example: "Zürich" -> "Zurich";  "東京" -> "東京" """
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(c for c in decomposed if not unicodedata.combining(c))
