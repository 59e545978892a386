"""Word salad, the statistical family: ``pbsmt`` (Gupta, Kvernadze & Srikumar, 2021, §3).

The paper trains one phrase-based SMT system per label that "translates" a pair's first text into its second
(NLI: premise -> hypothesis; QQP: question1 -> question2; SST-2: the first half of a sentence -> the second
half), only on that label's training pairs, and replaces the second text (SST-2: the second half) by the
system's output: fluent-looking salad that carries the label's lexical statistics and nothing of the meaning.
MRPC is left out, as in the paper. The systems are built from :mod:`noisecraft.pbsmt` (NLTK alignment, phrase
extraction and stack decoder, a Kneser-Ney language model queried by kenlm) and stored in the cache by the
content of the training data and the settings; decoding is deterministic and its outputs are cached, so a new
seed costs neither training nor decoding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from noisecraft.core.citations import WORD_SALAD_CITATION
from noisecraft.core.edits import Noised, whole_field
from noisecraft.core.params import param
from noisecraft.core.text_units import join_tokens, token_spans
from noisecraft.errors import ConfigError
from noisecraft.extras import require
from noisecraft.noise_models.base import Capabilities, NoiseInput, NoiseModel
from noisecraft.pbsmt.decoder import EXTRA
from noisecraft.pbsmt.generator import TASKS, LabelGenerators, Settings, halves

MRPC_LABELS = ("not_equivalent", "equivalent")


@dataclass(frozen=True)
class WordSaladPBSMT(NoiseModel):
    """Per-label phrase-based generators replace the second text of a pair (SST-2: the second half of the sentence)."""

    task: str = param("mnli", "whose training pairs: mnli (premise -> hypothesis), qqp (question1 -> question2), sst2 "
                              "(first half -> second half of the sentence), xnli (premise -> hypothesis, XNLI-MT); "
                              "MRPC is not defined, as in the paper", choices=tuple(TASKS))
    lang: str = param("en", "language of the text (set by the build)")
    data_file: str = param("", "the task's training split in its original format (GLUE train.tsv; XNLI-MT "
                               "multinli.train.<lang>.tsv); default: the Hub copy", file="source")
    ibm_iterations: int = param(5, "EM iterations of IBM Model 1 in each alignment direction", min=1, max=50)
    max_phrase_length: int = param(4, "longest source phrase extracted, in words (Moses: 7)", min=1, max=10)
    translations: int = param(10, "target phrases kept per source phrase, most likely first (Moses's ttable-limit: 20)",
                              min=1, max=100)
    lm_order: int = param(3, "order of each label's Kneser-Ney language model", min=1, max=6)
    stack_size: int = param(20, "hypotheses kept per decoder stack (Moses: 200); larger is slower", min=1, max=1000)
    distortion_factor: float = param(0.5, "score factor per source word jumped over when reordering (1: free "
                                          "reordering; near 0: monotone)", min=0.0, max=1.0)

    name: ClassVar[str] = "pbsmt"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = WORD_SALAD_CITATION
    capabilities: ClassVar[Capabilities] = Capabilities(protects_spans=False, edit_log="whole-field", model_based=True,
                                                        deterministic=True)

    def _where(self) -> str:
        """How errors name this config."""
        source = f", data_file={Path(self.data_file).name}" if self.data_file else ""
        return f"{self.noise_id}(task={self.task}{source})"

    def load(self) -> LabelGenerators:
        require("nltk", EXTRA)
        require("kenlm", EXTRA)
        settings = Settings(self.ibm_iterations, self.max_phrase_length, self.translations, self.lm_order)
        return LabelGenerators(self.task, self.lang, self.data_file, settings, self.stack_size, self.distortion_factor,
                               self._where())

    def for_labels(self, names: Sequence[str]) -> NoiseModel:
        expected = TASKS[self.task].label_names
        if tuple(names) == MRPC_LABELS:
            raise ConfigError(f"{self._where()}: pbsmt is not defined for MRPC (Gupta et al., 2021 train no generator "
                              "for it); use it on MNLI, QQP, SST-2 or XNLI")
        if tuple(names) != expected:
            raise ConfigError(f"{self._where()}: the set's labels are {', '.join(names)}, but task={self.task} trains "
                              f"one generator for each of {', '.join(expected)}: pick the task of the source")
        return self

    def describe(self) -> str:
        spec = TASKS[self.task]
        what = ("the first half of each sentence is kept and its second half replaced by the output of a "
                "phrase-based system trained, per label, to continue first halves of training sentences into "
                "their second halves" if spec.halves else
                f"`{spec.second}` is replaced by the output of a phrase-based system trained, per label, to translate "
                f"`{spec.first}` into `{spec.second}` on that label's training pairs, run on the row's `{spec.first}`")
        training = Path(self.data_file).name if self.data_file else "the Hub training split"
        return (f"Word salad (PBSMT, Gupta et al., 2021): {what} ({training}). "
                "Moses is not installable from a package registry; standing in for it: NLTK's IBM Model 1 in both "
                "directions with grow-diag-final-and (for GIZA++), NLTK's phrase extraction scored by p(e|f) and p(f|e), a "
                f"{self.lm_order}-gram interpolated Kneser-Ney model queried by kenlm, and NLTK's stack decoder "
                f"(stack {self.stack_size}, {self.translations} translations per phrase, distortion factor "
                f"{self.distortion_factor}); source words no phrase covers are dropped, so the output holds only "
                "phrases of the label's training data. Decoding draws nothing at random. The labels are the source's: "
                "they no longer describe the text.")

    def provenance(self) -> dict[str, Any]:
        from importlib.metadata import version

        return {"stands_in_for_moses": "nltk IBMModel1 x2 + grow-diag-final-and, nltk phrase_extraction, "
                                       "Kneser-Ney ARPA + kenlm, nltk StackDecoder",
                "nltk": version("nltk"), "kenlm": version("kenlm")}

    def _sources(self, batch: NoiseInput) -> tuple[list[int], list[list[str]], list[int]]:
        """Each row's label, the tokens fed to its label's system, and (single-text tasks) where the second half
        starts in the text; one-line errors for rows the model cannot take."""
        spec = TASKS[self.task]
        labels, sources, cuts = [], [], []
        for i, text in enumerate(batch.texts):
            label = batch.label(i)
            if label is None:
                raise ConfigError(f"{self._where()}: row id {batch.ids[i]!r} has no class label; pbsmt generates with "
                                  "the generator of the row's label (use a labelled split)")
            pair = batch.pairs[i] if batch.pairs is not None else None
            if spec.halves:
                if pair is not None:
                    raise ConfigError(f"{self._where()}: task {self.task} is single-text, but the field is part of a "
                                      "pair: use task=mnli, qqp or xnli for pair tasks")
                spans = token_spans(text, self.lang)
                cut = len(spans) // 2
                source = halves([text[a:b] for a, b in spans])[0]
                cuts.append(spans[cut][0] if len(spans) >= 2 else -1)
            else:
                if pair is None:
                    raise ConfigError(f"{self._where()}: task {self.task} translates the first text of a pair into the "
                                      "second, but the field is a single text: use task=sst2 for single-text tasks")
                if pair.target != 1:
                    raise ConfigError(f"{self._where()}: pbsmt replaces the second text of a pair ({spec.second}), not "
                                      f"the first ({spec.first}): noise the field {spec.second}")
                source = [pair.first[a:b] for a, b in token_spans(pair.first, self.lang)]
                cuts.append(0)
            labels.append(label)
            sources.append(source)
        return labels, sources, cuts

    def _generate(self, batch: NoiseInput, progress: bool) -> tuple[list[int], list[list[str]], list[int]]:
        from tqdm.auto import tqdm

        labels, sources, cuts = self._sources(batch)
        runnable = [i for i, cut in enumerate(cuts) if cut >= 0]
        with tqdm(total=len(runnable), desc=f"{self.noise_id} decoding", unit="text", leave=False,
                  disable=not progress) as bar:
            outputs = self.runtime().outputs([labels[i] for i in runnable], [sources[i] for i in runnable], bar.update)
        generated: list[list[str]] = [[] for _ in batch.texts]
        for i, tokens in zip(runnable, outputs):
            generated[i] = tokens
        return labels, generated, cuts

    def prepare(self, batch: NoiseInput, progress: bool = True) -> None:
        self._generate(batch, progress)

    def apply(self, batch: NoiseInput) -> list[Noised]:
        labels, generated, cuts = self._generate(batch, False)
        names = TASKS[self.task].label_names
        results = []
        for text, label, tokens, cut in zip(batch.texts, labels, generated, cuts):
            if cut < 0:
                results.append(Noised(text, (), "pbsmt: fewer than two words, so no second half to generate"))
            elif not tokens:
                results.append(Noised(text, (), f"pbsmt: no phrase of the source text is in the phrase table of label "
                                                f"{names[label]!r}"))
            else:
                prefix = text[:cut].rstrip()
                new = join_tokens(tokens, self.lang)
                results.append(self._rewrite(text, join_tokens([prefix, new], self.lang) if prefix else new))
        return results

    def _rewrite(self, text: str, generated: str) -> Noised:
        """The row's text replaced by the generated one (version 1: as generated, its trailing space dropped)."""
        return whole_field(text, generated, "pbsmt")


@dataclass(frozen=True)
class WordSaladPBSMTV2(WordSaladPBSMT):
    """Per-label phrase-based generators replace the second text of a pair (SST-2: the second half of the sentence);
    a generation that differs from the text only in whitespace is no change."""

    version: ClassVar[int] = 2

    def _rewrite(self, text: str, generated: str) -> Noised:
        """Version 1 dropped the text's trailing whitespace (GLUE's SST-2 sentences end in a space), so a system that
        gave the second half back word for word still counted as a change, and the card showed it as an example:
        the generated text keeps the original's trailing whitespace, and one with the same words is no edit."""
        if generated.split() == text.split():
            return Noised(text, ())
        return whole_field(text, generated + text[len(text.rstrip()):], "pbsmt")
