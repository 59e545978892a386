"""The CoLeS probe (Li, Liu & Gao, 2023): how noise corrupts a tokenizer's segmentation of a word.

* :mod:`.corruption`: the six corruption types of a (canonical, noisy) pair of subword sequences;
* :mod:`.segmentation`: words segmented as a model sees them, boundary marks stripped;
* :mod:`.pairs`: the pairs of a CoLeS dataset (built by ``scripts/recipes/coles.toml``);
* :mod:`.typing_table`: the typed table of a whole dataset for one tokenizer, with shares per noise kind.

The two measurements on models (similarity, downstream accuracy) are in ``noisecraft.harness.coles``.
"""

CITATION = """@inproceedings{li-etal-2023-pretrained,
  title = {Can Pretrained Language Models Derive Correct Semantics from Corrupt Subwords under Noise?},
  author = {Li, Xinzhe and Liu, Ming and Gao, Shang},
  booktitle = {Proceedings of the 12th Joint Conference on Lexical and Computational Semantics (*SEM 2023)},
  year = {2023},
  pages = {165--173}
}"""
