"""The eight learner error types of Yin et al. (2020) and the reference vocabularies of the
closed-class ones (their Table 1 sets, as in the authors' release).

Both the GEC miner (``noisecraft mine gec``) and the noise models read these, so a mined confusion
table and the model that samples from it agree on the names, the vocabularies and on ``∅``.
"""

from __future__ import annotations

#: The paper's eight types, in its order.
ERROR_TYPES = ("ArtOrDet", "Prep", "Trans", "Nn", "SVA", "Vform", "Wchoice", "Worder")
#: What each type is, for cards and ``noisecraft noises``.
TYPE_DESCRIPTIONS = {
    "ArtOrDet": "article or determiner inserted, deleted or replaced",
    "Prep": "preposition inserted, deleted or replaced",
    "Trans": "linking word inserted, deleted or replaced",
    "Nn": "noun number (singular <-> plural)",
    "SVA": "subject-verb agreement of a present-tense verb (3rd person singular <-> other)",
    "Vform": "verb form (present, past, progressive, perfect)",
    "Wchoice": "word choice (a WordNet synonym)",
    "Worder": "word order (an adverb swapped with the adjective, participle or modal beside it)",
}
#: The types whose errors are drawn from mined confusion weights w_ij (``∅`` = no word).
CLOSED_CLASS = ("ArtOrDet", "Prep", "Trans")
#: The ``operation`` of a mined row that counts towards the type distribution only (an edit that is not minimal).
TYPE_ONLY = "type-only"
#: The empty word: a ``correct`` of ``∅`` is an insertion error, a ``noisy`` of ``∅`` a deletion.
EMPTY = "∅"

#: Reference vocabularies of the closed-class types (Table 1 of the paper, as in its release).
REFERENCE_SETS: dict[str, frozenset[str]] = {
    "ArtOrDet": frozenset({"a", "an", "the", EMPTY}),
    "Prep": frozenset({"on", "in", "at", "from", "for", "under", "over", "with", "into", "during", "until", "against",
                       "among", "throughout", "of", "to", "by", "about", "like", "before", "after", "since", "across",
                       "behind", "but", "out", "up", "down", "off", EMPTY}),
    "Trans": frozenset({"and", "but", "so", "however", "as", "that", "thus", "also", "because", "therefore", "if",
                        "although", "which", "where", "moreover", "besides", "of", EMPTY}),
}
