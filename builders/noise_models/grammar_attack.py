"""``grammar-attack``: the worst-case learner errors for a classifier (Yin et al., 2020, the adversarial search).

Against any Hugging Face sequence classifier (``victim``, a Hub id with ``revision`` or a saved folder),
each text gets the learner errors that flip the victim's prediction, searched among every error the eight
types can make in it (:mod:`noisecraft.grammar.search`: greedy, beam or genetic), with at most ``budget``
of its words modified. On a pair task the victim reads the whole pair and the perturbed side is the
build's field (the paper's: MRPC sentence1, MNLI hypothesis, QNLI sentence; the sources' defaults).

The goal is the row's gold label (``class_label`` of the label layout; GLUE and XNLI have it). A build or
``perturb`` of a dataset without a class-label column (XQuAD) is refused, as is a row whose label is missing
(a test split's -1): the card would call the victim's own prediction the row's label. Texts given to the
model directly (the Python API, no dataset) have no label: there the victim's prediction on the clean text is
attacked. Every row is kept, with its result in per-row columns:

* ``noise_attack_status``: ``succeeded`` (the text is the adversarial example), ``failed`` (no error within
  the budget flips the prediction; the text is the search's best attempt) or ``skipped`` (the victim
  already gets the clean row wrong: the text is unchanged, as the paper attacks only correct predictions);
* ``noise_attack_queries``: distinct victim inputs the search scored for the row (the clean one included);
* ``noise_attack_words_modified``: the share of the text's words a successful attack changed (empty otherwise);
* ``noise_attack_label`` and ``noise_attack_prediction``: the label attacked and the victim's prediction on
  the output text.

The card gives the success rate (over rows not skipped), the mean share of words modified by successful
attacks, the queries per row, and the victim's id and resolved revision.

Every candidate of a search step, of every row of the build batch, is scored in one call to the victim,
which deduplicates, caches (memory and disk) and batches by length. Probabilities are rounded to 6
decimals, so the search's choices do not depend on which rows shared a batch, up to candidates whose
scores differ only past that precision (ties are broken by a fixed order).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from noisecraft.core.citations import TEXTATTACK_CITATION, YIN2020_CITATION
from noisecraft.core.edits import Noised, noised_from_edits
from noisecraft.core.params import param
from noisecraft.core.seeding import ExampleRng
from noisecraft.errors import ConfigError
from noisecraft.grammar.confusions import GrammarConfusions
from noisecraft.grammar.search import (
    SEARCHES,
    AttackProblem,
    Outcome,
    Search,
    beam,
    genetic,
    greedy,
    operations,
    prediction,
    run_searches,
)
from noisecraft.grammar.victim import ClassifierInput, Victim
from noisecraft.noise_models.base import NoiseInput
from noisecraft.noise_models.grammar import GrammarNoiseBase, GrammarRuntime
from noisecraft.noise_models.model_base import ModelNoise, ModelRuntime


class AttackRuntime(GrammarRuntime, ModelRuntime):
    """The grammar runtime plus the victim classifier's bound head (resolved on first use, its weights on its first
    query)."""

    def __init__(self, confusions: GrammarConfusions, tagger: str, nltk_data: str,
                 head_loader: Callable[[], Victim]) -> None:
        GrammarRuntime.__init__(self, confusions, tagger, nltk_data)
        ModelRuntime.__init__(self, head_loader)


@dataclass(frozen=True)
class GrammarAttack(GrammarNoiseBase, ModelNoise):
    """Learner grammar errors chosen to flip a classifier's prediction (greedy, beam or genetic search over
    every error the eight types can make, within a budget of words)."""

    victim: str = param("", "the classifier attacked: a Hugging Face Hub model id or a folder saved with "
                            "save_pretrained()", file="model")
    search: str = param("greedy", "search method: greedy (importance by deletion, then the best error word by word), "
                                  "beam, or genetic", choices=SEARCHES)
    budget: float = param(0.15, "largest share of a text's words the errors may modify (at least one word)", min=0.0,
                          max=1.0)
    beam_width: int = param(5, "beam search: states kept at each word", min=1)
    population: int = param(60, "genetic search: population size", min=2)
    generations: int = param(20, "genetic search: generations", min=1)

    name: ClassVar[str] = "grammar-attack"
    version: ClassVar[int] = 1
    citation: ClassVar[str] = YIN2020_CITATION + "\n\n" + TEXTATTACK_CITATION
    model_param: ClassVar[str] = "victim"
    extra: ClassVar[str] = "grammar"
    label_remedy: ClassVar[str] = "Attack it with a victim trained on this dataset's labels"
    row_columns: ClassVar[Mapping[str, str]] = {"attack_status": "string", "attack_queries": "int32",
                                                "attack_words_modified": "float32", "attack_label": "int32",
                                                "attack_prediction": "int32"}

    def load(self) -> AttackRuntime:
        return AttackRuntime(GrammarNoiseBase.load(self).confusions, self.tagger, self.nltk_data, self.load_head)

    def without_labels(self, where: str) -> GrammarAttack:
        """Refused: the attack flips the victim's prediction away from the row's gold label, and ``noise_attack_label``
        and the card call it that; without a label column, the victim's own prediction would be recorded as it."""
        raise ConfigError(f"{self.noise_id}: {where} has no class-label column, so a row has no label to attack (the "
                          "victim's own prediction would be recorded as the row's label); attack a labelled "
                          "classification source (GLUE, XNLI, a table with a label column)")

    def seed_params(self) -> dict[str, object]:
        """The model rule of :class:`~noisecraft.noise_models.model_base.ModelNoise`, and (this version's own, kept so
        its outputs stay as they were) the victim's precision."""
        return {**super().seed_params(), "victim_dtype": self.head.provenance().get("dtype")}

    def describe(self) -> str:
        method = {"greedy": "greedy search (words ranked by how much deleting them lowers the victim's confidence in "
                            "the label, then at each word the error that lowers it most)",
                  "beam": f"beam search (width {self.beam_width}) over the words ranked by importance",
                  "genetic": f"a genetic search (population {self.population}, {self.generations} generations)"}
        victim = self.head.provenance()
        return (f"Worst-case learner grammar errors as in Yin et al. (2020): against the classifier "
                f"`{victim.get('model', {}).get('model')}` (revision `{victim.get('model', {}).get('revision')}`), "
                f"{method[self.search]} chooses among every error the eight types can make in the text (types mined from "
                f"`{self.confusions}`: {self._type_shares()}; places from the {self.tagger} tagger, lemminflect and "
                f"WordNet), with at most {self.budget:.0%} of the words modified, until the prediction leaves the "
                "row's label. Every row is kept: `noise_attack_status` says whether the attack succeeded, failed (the "
                "text is the best attempt) or was skipped (the victim was already wrong), with the queries it took.")

    def summary(self, stats: Mapping[str, Any]) -> str:
        """Success rate over the rows the victim got right, mean share of words a successful attack modified,
        queries per row, and the victim."""
        columns = stats.get("columns", {})
        status = columns.get("attack_status", {})
        succeeded, failed, skipped = (status.get(s, 0) for s in ("succeeded", "failed", "skipped"))
        modified, queries = columns.get("attack_words_modified", {}), columns.get("attack_queries", {})
        victim = self.head.provenance().get("model", {})
        rate = f"{succeeded / (succeeded + failed):.1%}" if succeeded + failed else "n/a"
        words = f"{modified['sum'] / modified['rows']:.1%}" if modified.get("rows") else "n/a"
        per_row = f"{queries['sum'] / queries['rows']:.1f}" if queries.get("rows") else "n/a"
        return (f"attack success rate {rate} ({succeeded} of {succeeded + failed} rows the victim got right; {skipped} "
                f"skipped as already wrong); successful attacks modified {words} of the words on average; {per_row} "
                f"victim queries per row; victim `{victim.get('model')}` at revision `{victim.get('revision')}`.")

    def prepare(self, batch: NoiseInput, progress: bool = True) -> None:
        """Score every clean input of the split at once (the runs then find them in the victim's cache)."""
        self.head.run(_clean_inputs(batch))

    def apply(self, batch: NoiseInput) -> list[Noised]:
        runtime: AttackRuntime = self.runtime()
        victim = runtime.head
        inputs = _clean_inputs(batch)
        clean = victim.run(inputs)
        mapping = self.label_mapping()
        to_dataset = list(mapping.targets) if mapping else None  # victim label -> dataset label (one to one)
        to_victim = {t: m for m, t in enumerate(to_dataset)} if to_dataset else None
        finder = self.finder()
        problems: list[AttackProblem] = []
        for index, (text, words) in enumerate(zip(batch.texts, runtime.tagger.tag(list(batch.texts)))):
            sites = finder.sites(text, words, batch.spans(index))
            label = batch.label(index)
            if label is None and self._label_names:
                raise ConfigError(f"{self.noise_id}: row {batch.ids[index]} has no label (-1, a test split?): there "
                                  "is no label to attack; build a labelled split")
            if label is not None and to_victim is not None:
                label = to_victim[label]
            pair = batch.pairs[index] if batch.pairs is not None else None
            target = pair.target if pair is not None else 0
            problems.append(AttackProblem(text, inputs[index], target, [(w.start, w.end) for w in words],
                                          operations(sites), self.budget,
                                          prediction(clean[index]) if label is None else label))
        todo = [k for k, problem in enumerate(problems) if prediction(clean[k]) == problem.label]
        outcomes = dict(zip(todo, run_searches([self._search(problems[k], clean[k], batch.rngs[k]) for k in todo],
                                               victim)))
        results = []
        for index, problem in enumerate(problems):
            outcome, queries = outcomes.get(index, (Outcome("skipped", probabilities=clean[index]), 0))
            results.append(self._noised(problem, outcome, queries + 1, to_dataset))
        return results

    def _search(self, problem: AttackProblem, clean: list[float], rng: ExampleRng) -> Search:
        if self.search == "beam":
            return beam(problem, clean, self.beam_width)
        if self.search == "genetic":
            return genetic(problem, clean, self.population, self.generations, rng)
        return greedy(problem, clean)

    @staticmethod
    def _noised(problem: AttackProblem, outcome: Outcome, queries: int, to_dataset: list[Any] | None) -> Noised:
        noised = noised_from_edits(problem.text, problem.edits(outcome.state))
        modified = round(len(problem.used(outcome.state)) / max(len(problem.spans), 1), 4)
        label, predicted = problem.label, prediction(outcome.probabilities)  # the victim's label indices
        columns = {"attack_status": outcome.status, "attack_queries": queries,
                   "attack_words_modified": modified if outcome.status == "succeeded" else None,
                   "attack_label": to_dataset[label] if to_dataset else label,
                   "attack_prediction": to_dataset[predicted] if to_dataset else predicted}
        return noised._replace(columns=columns)


def _clean_inputs(batch: NoiseInput) -> list[ClassifierInput]:
    """The victim's input for each row: ``(text,)``, or the pair in the task's order (the whole pair is classified)."""
    pairs = batch.pairs if batch.pairs is not None else [None] * len(batch)
    return [(text,) if pair is None else (pair.first, pair.second) for text, pair in zip(batch.texts, pairs)]
