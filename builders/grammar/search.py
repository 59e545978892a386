"""Worst-case learner errors: the adversarial search of Yin et al. (2020), shaped like TextAttack but batched.

The parts, as TextAttack names them:

* **transformation**: every error the eight types can make in the sentence (:func:`operations`, from the
  sites of :mod:`noisecraft.grammar.operations`), each anchored at one word;
* **constraints**: at most ``budget`` of the words modified, each word at most once, protected spans never
  touched (:meth:`AttackProblem.allows`);
* **goal function**: untargeted classification: the victim's prediction leaves ``label`` (the gold label,
  or the clean prediction when there is none); the score to maximise is ``1 - p(label)``;
* **search methods**: ``greedy`` (words ranked by how much deleting them lowers p(label), then at each word
  the best of its operations, until the label flips or the budget is spent), ``beam`` (the same walk keeping
  the ``width`` best states) and ``genetic`` (Alzantot et al., 2018, as the authors' code adapts it:
  a population perturbed at random positions by their best operation, crossed over and selected by
  fitness for a number of generations).

Each search is a generator: it yields the classifier inputs it needs scored and receives their class
probabilities. :func:`run_searches` runs the searches of many examples in lockstep and scores every
candidate of a step, of every example, in **one** call to the victim (which batches, caches and
deduplicates); it counts each example's queries (distinct inputs it asked about).
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from noisecraft.core.edits import Edit, apply_edits
from noisecraft.core.seeding import ExampleRng
from noisecraft.grammar.operations import Site
from noisecraft.grammar.victim import ClassifierInput, Victim

Status = Literal["succeeded", "failed", "skipped"]
SEARCHES = ("greedy", "beam", "genetic")
#: Alzantot et al.'s selection temperature: parents are drawn with probability softmax(fitness / 0.3).
SELECTION_TEMPERATURE = 0.3

State = frozenset[int]  # indices into the problem's operations
EMPTY: State = frozenset()
Search = Generator[list[ClassifierInput], list[list[float]], "Outcome"]


@dataclass(frozen=True)
class Operation:
    """One error at one place: its edits, the words it changes, the word it is anchored at, its type."""

    anchor: int
    words: frozenset[int]
    edits: tuple[Edit, ...]
    error_type: str


def operations(sites: dict[str, list[Site]]) -> list[Operation]:
    """Every option of every site, as operations in a stable order (by anchor word, then type order)."""
    found = [Operation(min(site.words), site.words, option.edits, kind)
             for kind, kind_sites in sites.items() for site in kind_sites for option in site.options]
    return sorted(found, key=lambda op: (op.anchor, op.edits[0].start, op.edits[0].replacement, op.error_type))


@dataclass
class AttackProblem:
    """One example: the text to perturb inside its classifier input, its words, operations and goal."""

    text: str
    clean_input: ClassifierInput  # the victim's input, with ``text`` at position ``target``
    target: int
    spans: list[tuple[int, int]]  # the words of ``text``
    operations: list[Operation]
    budget_share: float
    label: int = -1

    @property
    def budget(self) -> int:
        """Words that may be modified: ``budget_share`` of the words, at least one."""
        return max(1, math.floor(self.budget_share * len(self.spans)))

    def edits(self, state: State) -> list[Edit]:
        return sorted(edit for i in state for edit in self.operations[i].edits)

    def perturbed(self, state: State) -> str:
        return apply_edits(self.text, self.edits(state))

    def input_of(self, state: State) -> ClassifierInput:
        """The classifier input with the target text perturbed by ``state``."""
        return self._with_target(self.perturbed(state))

    def _with_target(self, text: str) -> ClassifierInput:
        parts = list(self.clean_input)
        parts[self.target] = text
        return tuple(parts)

    def used(self, state: State) -> frozenset[int]:
        return frozenset(w for i in state for w in self.operations[i].words)

    def allows(self, state: State, index: int) -> bool:
        """Constraints: the operation's words are free, and the budget holds after it."""
        used = self.used(state)
        words = self.operations[index].words
        return not words & used and len(used | words) <= self.budget

    def anchors(self) -> dict[int, list[int]]:
        """Operation indices by anchor word."""
        by_anchor: dict[int, list[int]] = {}
        for index, op in enumerate(self.operations):
            by_anchor.setdefault(op.anchor, []).append(index)
        return by_anchor

    def without_word(self, position: int) -> ClassifierInput:
        """The input with word ``position`` (and the spaces after it) deleted: greedy's importance of a word."""
        start, end = self.spans[position]
        while end < len(self.text) and self.text[end] == " ":
            end += 1
        return self._with_target(self.text[:start] + self.text[end:])

    def score(self, probabilities: list[float]) -> float:
        """The goal function's score: 1 - p(label)."""
        return 1.0 - probabilities[self.label]

    def succeeded(self, probabilities: list[float]) -> bool:
        return prediction(probabilities) != self.label


def prediction(probabilities: list[float]) -> int:
    """The predicted class (the first of equal maxima)."""
    return max(range(len(probabilities)), key=lambda k: (probabilities[k], -k))


@dataclass
class Outcome:
    """What a search ended with."""

    status: Status
    state: State = EMPTY
    probabilities: list[float] = field(default_factory=list)


def _best(problem: AttackProblem, states: Sequence[State], scored: list[list[float]]) -> tuple[int, bool]:
    """Index of the best candidate (a successful one first, then the highest score; ties: the first) and
    whether it succeeded."""
    successes = [k for k, p in enumerate(scored) if problem.succeeded(p)]
    pool = successes or range(len(states))
    best = max(pool, key=lambda k: (problem.score(scored[k]), -k))
    return best, bool(successes)


def _importance(problem: AttackProblem) -> Generator[list[ClassifierInput], list[list[float]], list[int]]:
    """Anchor words, most important first: ranked by p(label) with the word deleted, lowest first."""
    anchors = sorted(problem.anchors())
    if not anchors:
        return []
    scored = yield [problem.without_word(a) for a in anchors]
    return [a for _, a in sorted((p[problem.label], a) for p, a in zip(scored, anchors))]


def greedy(problem: AttackProblem, clean: list[float]) -> Search:
    """Importance by deletion, then the best operation at each word in turn (the authors' greedy agent)."""
    order = yield from _importance(problem)
    by_anchor = problem.anchors()
    state, last = EMPTY, clean
    for anchor in order:
        if len(problem.used(state)) >= problem.budget:
            break
        candidates = [state | {i} for i in by_anchor[anchor] if problem.allows(state, i)]
        if not candidates:
            continue
        scored = yield [problem.input_of(s) for s in candidates]
        best, success = _best(problem, candidates, scored)
        state, last = candidates[best], scored[best]
        if success:
            return Outcome("succeeded", state, last)
    return Outcome("failed", state, last)


def beam(problem: AttackProblem, clean: list[float], width: int) -> Search:
    """The greedy walk over the words, keeping the ``width`` best states at each word."""
    order = yield from _importance(problem)
    by_anchor = problem.anchors()
    beams: list[tuple[State, list[float]]] = [(EMPTY, clean)]
    for anchor in order:
        candidates = list(dict.fromkeys(s | {i} for s, _ in beams for i in by_anchor[anchor] if problem.allows(s, i)))
        if not candidates:
            continue
        scored = yield [problem.input_of(s) for s in candidates]
        best, success = _best(problem, candidates, scored)
        if success:
            return Outcome("succeeded", candidates[best], scored[best])
        ranked = sorted(range(len(candidates)), key=lambda k: (-problem.score(scored[k]), k))[:width]
        beams = [(candidates[k], scored[k]) for k in ranked]
    state, probabilities = max(beams, key=lambda b: problem.score(b[1]))
    return Outcome("failed", state, probabilities)


def genetic(problem: AttackProblem, clean: list[float], population: int, generations: int, rng: ExampleRng) -> Search:
    """Alzantot et al.'s genetic search over the operations (population, crossover, fitness-proportional
    selection with an elite), each member perturbed by the best operation at a position drawn by its number
    of operations; all members' candidates of a step are scored together."""
    by_anchor = problem.anchors()
    anchors = sorted(by_anchor)
    if not anchors:
        return Outcome("failed", EMPTY, clean)
    members = yield from _perturb(problem, [EMPTY] * population, by_anchor, anchors, rng)
    best_state, best_probabilities = EMPTY, clean
    for _ in range(generations):
        scored = yield [problem.input_of(s) for s in members]
        best, success = _best(problem, members, scored)
        best_state, best_probabilities = members[best], scored[best]
        if success:
            return Outcome("succeeded", best_state, best_probabilities)
        fitness = [problem.score(p) for p in scored]
        top = max(fitness)
        weights = [math.exp((f - top) / SELECTION_TEMPERATURE) for f in fitness]
        children = [_crossover(problem, members[rng.weighted(weights)], members[rng.weighted(weights)], rng)
                    for _ in range(population - 1)]
        members = [members[best], *(yield from _perturb(problem, children, by_anchor, anchors, rng))]
    return Outcome("failed", best_state, best_probabilities)


def _perturb(problem: AttackProblem, states: list[State], by_anchor: dict[int, list[int]], anchors: list[int],
             rng: ExampleRng) -> Generator[list[ClassifierInput], list[list[float]], list[State]]:
    """Each state with one position re-drawn (by its number of operations; a free one while the budget
    allows, else one already modified) and set to its best operation; one scoring call for all states."""
    options: list[list[State]] = []
    for state in states:
        used_anchors = {problem.operations[i].anchor for i in state}
        free = [a for a in anchors if a not in used_anchors]
        pool = free if free and len(problem.used(state)) < problem.budget else sorted(used_anchors) or anchors
        anchor = pool[rng.weighted([len(by_anchor[a]) for a in pool])]
        kept = frozenset(i for i in state if problem.operations[i].anchor != anchor)
        options.append([kept | {i} for i in by_anchor[anchor] if problem.allows(kept, i)] or [state])
    flat = [s for group in options for s in group]
    scored = yield [problem.input_of(s) for s in flat]
    chosen, offset = [], 0
    for group in options:
        best, _ = _best(problem, group, scored[offset : offset + len(group)])
        chosen.append(group[best])
        offset += len(group)
    return chosen


def _crossover(problem: AttackProblem, first: State, second: State, rng: ExampleRng) -> State:
    """Per anchor word, the operation of one parent or the other (each with probability 1/2), kept only
    while the constraints hold."""
    by_anchor: dict[int, list[int | None]] = {}
    for parent, state in enumerate((first, second)):
        for i in state:
            by_anchor.setdefault(problem.operations[i].anchor, [None, None])[parent] = i
    child: State = EMPTY
    for anchor in sorted(by_anchor):
        pick = by_anchor[anchor][0 if rng.random() < 0.5 else 1]
        if pick is not None and problem.allows(child, pick):
            child = child | {pick}
    return child


@dataclass
class SearchRun:
    """One example's search in flight and the distinct inputs it has asked about."""

    search: Search
    asked: set[ClassifierInput] = field(default_factory=set)
    request: list[ClassifierInput] = field(default_factory=list)
    outcome: Outcome | None = None


def run_searches(searches: Sequence[Search], victim: Victim) -> list[tuple[Outcome, int]]:
    """Run searches in lockstep, scoring every pending request of a step in one victim call; returns each
    search's outcome and its query count."""
    runs = [SearchRun(search) for search in searches]
    for run in runs:
        _advance(run, None)
    while active := [run for run in runs if run.outcome is None]:
        inputs = [i for run in active for i in run.request]
        scored = victim.run(inputs)
        offset = 0
        for run in active:
            answer = scored[offset : offset + len(run.request)]
            offset += len(run.request)
            _advance(run, answer)
    return [(run.outcome, len(run.asked)) for run in runs if run.outcome is not None]


def _advance(run: SearchRun, answer: list[list[float]] | None) -> None:
    try:
        request = next(run.search) if answer is None else run.search.send(answer)
    except StopIteration as stop:
        run.outcome = stop.value
        return
    run.asked.update(request)
    run.request = request
