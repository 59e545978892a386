"""Phrase-based statistical "translation" from a pair's first text to its second, one system per class label
(the ``pbsmt`` word-salad generator of Gupta, Kvernadze & Srikumar, 2021), from maintained parts: NLTK's IBM Model 1
and grow-diag-final-and for word alignment, NLTK's phrase extraction, an interpolated Kneser-Ney n-gram model
queried by kenlm, and NLTK's phrase-based stack decoder. Moses, which the paper used, is not installable from a
package registry; these parts stand in for its GIZA++, phrase scoring, KenLM and decoder.

* :mod:`.arpa`: the language model, estimated here and written as ARPA (kenlm ships no estimator on PyPI);
* :mod:`.phrase_table`: alignment, phrase extraction and scoring;
* :mod:`.decoder`: the stack decoder with kenlm as its language model;
* :mod:`.generator`: one trained system per label, stored in the cache by the digest of what decides it.
"""
