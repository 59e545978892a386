"""Learner grammar errors (Yin et al., ACL 2020, "On the Robustness of Language Encoders against
Grammatical Errors"): the eight error types and their reference vocabularies, the confusion sets mined
from GEC corpora, where each type applies in a tagged sentence, and the adversarial search.

* :mod:`.error_types`: the eight types, the paper's closed-class vocabularies (Table 1), ``∅``;
* :mod:`.confusions`: a mined confusion table (``noisecraft mine gec``) loaded for sampling;
* :mod:`.tagging`: words with character spans, POS taggers (spaCy or NLTK's perceptron), WordNet;
* :mod:`.operations`: every error one type can make at each position of a tagged sentence;
* :mod:`.victim` and :mod:`.search`: the victim classifier and the worst-case search (``grammar-attack``).

NLTK, lemminflect, torch and transformers are imported only where needed (the ``[grammar]`` extra).
"""
