"""Readers: one frame of the true table as a camera or a sensor board reports it, with
wrong readings (flicker), correct-but-unsure readings, and elements hidden by a hand;
or, for a camera given ``TableConfig.camera_errors``, readings drawn from a fitted
reader's measured errors (``vision.reader_errors``)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from functools import cache

import numpy as np

from companion.simulator.config import TableConfig
from companion.simulator.handling import Table
from engines.observation import Observation, Reading, TableSchema, Value
from vision.reader_errors import ReaderErrors, ReadingSampler, element_kinds, load_errors


class Reader:
    """One source (``camera`` or ``sensors``) reading a fixed set of elements."""

    def __init__(
        self,
        source: str,
        schema: TableSchema,
        elements: Mapping[str, float],
        config: TableConfig,
        hidden_by_hands: bool,
        side: Collection[str] = (),
    ) -> None:
        """``elements``: what the source reads, each with a good reading's confidence;
        ``side``: those of them read from the side by a slanted camera (stack heights),
        right as often as ``config.side_heights_right``, unsure when wrong."""
        self.side = frozenset(side)
        self.source = source
        self.schema = schema
        self.elements = tuple(elements)
        self.config = config
        self.hidden_by_hands = hidden_by_hands
        # Every value an element may take, in a fixed order, for drawing a wrong one.
        self._values = {e: sorted(schema.values[e], key=repr) for e in elements}
        self._confidence = list(elements.values())
        self._cache: dict[tuple[type, Value, float], Reading] = {}
        self._sampler = (
            _sampler(schema, self.elements, config)
            if source == "camera" and config.camera_errors
            else None
        )

    def _reading(self, value: Value, confidence: float) -> Reading:
        key = (type(value), value, confidence)
        reading = self._cache.get(key)
        if reading is None:
            reading = self._cache[key] = Reading(value, confidence)
        return reading

    def read(self, table: Table, hidden: Collection[str], rng: np.random.Generator) -> Observation:
        """One frame. ``hidden``: elements under a hand (unknown, if hands hide them from
        this source). Two draws per element, in element order, so a seed replays."""
        config = self.config
        flicker, unsure = config.flicker, config.unsure
        sampler = self._sampler
        draws = rng.random((len(self.elements), 2 if sampler is None else 3)).tolist()
        readings: dict[str, Reading] = {}
        for i, element in enumerate(self.elements):
            if self.hidden_by_hands and element in hidden:
                continue
            value = table[element]
            if element in self.side:
                chance, other = draws[i][:2]
                readings[element] = (
                    self._reading(value, self._confidence[i])
                    if chance < config.side_heights_right
                    else self._misread_unsure(element, value, other)
                )
                continue
            if sampler is not None and element in sampler.kinds:
                drawn = sampler.draw(element, value, draws[i])
                if drawn is not None:
                    readings[element] = drawn
                continue
            chance, other = draws[i][:2]
            if chance < flicker:
                readings[element] = self._misread(element, value, other)
            elif chance < flicker + unsure:
                readings[element] = self._reading(value, config.unsure_confidence)
            else:
                readings[element] = self._reading(value, self._confidence[i])
        return Observation.trusted(self.schema, readings)

    def _misread_unsure(self, element: str, value: Value, draw: float) -> Reading:
        """A wrong value, drawn uniformly from the others the element may take, unsure."""
        others = [v for v in self._values[element] if v != value or type(v) is not type(value)]
        wrong = others[min(int(draw * len(others)), len(others) - 1)]
        return self._reading(wrong, self.config.unsure_confidence)

    def _misread(self, element: str, value: Value, draw: float) -> Reading:
        """A wrong value, drawn uniformly from the others the element may take; sure for
        the first ``flicker_sure`` of ``draw``'s range."""
        config = self.config
        sure = draw < config.flicker_sure
        # Reuse the draw: rescale the part of its range that chose sure or unsure.
        rest = (
            draw / config.flicker_sure
            if sure
            else ((draw - config.flicker_sure) / (1.0 - config.flicker_sure))
        )
        others = [v for v in self._values[element] if v != value or type(v) is not type(value)]
        wrong = others[min(int(rest * len(others)), len(others) - 1)]
        return self._reading(wrong, config.confidence if sure else config.unsure_confidence)


def _sampler(schema: TableSchema, elements: Collection[str], config: TableConfig) -> ReadingSampler:
    """The camera's reading sampler of ``config.camera_errors`` (``fitted`` or a path)."""
    path = None if config.camera_errors == "fitted" else config.camera_errors
    errors = _load_errors(schema.game, path)
    return ReadingSampler(
        errors, schema, element_kinds(schema.game, elements), chances=config.camera_chances
    )


@cache
def _load_errors(game: str, path: str | None) -> ReaderErrors:
    """A game's reader errors, read once (a benchmark builds a table per game)."""
    return load_errors(game, path)
